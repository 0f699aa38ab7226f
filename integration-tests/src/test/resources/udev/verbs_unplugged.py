# Opens verbs device NAME, allocates a PD, waits for its async event (the device is unplugged
# meanwhile), then tries another command: IBV_EVENT_DEVICE_FATAL, then EIO, as after the
# kernel's disassociate (ib_uverbs_free_hw_resources).
import sys
import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError

ctx = d.Context(name=sys.argv[1])
pd = PD(ctx)
print("ready", flush=True)
ev = ctx.get_async_event()
print("event", "DEVICE_FATAL" if ev.event_type == e.IBV_EVENT_DEVICE_FATAL else ev.event_type, flush=True)
ev.ack()
try:
    PD(ctx)
    print("alloc_pd ok", flush=True)
except PyverbsRDMAError as err:
    print("alloc_pd", err.error_code, flush=True)
