package io.ibemu.emulator.agent;

/**
 * The subnet management interface's directed-route rules (IBA 14.2.2, C14-9 and C14-13), as the
 * kernel's {@code smi.h} applies them when an SMP leaves or reaches a port. Each returns whether
 * the SMP is to be handled (true) or discarded, and moves the hop pointer as the rule says.
 */
public final class Smi {

    private Smi() {
    }

    /** __smi_handle_dr_smp_send: an SMP about to leave {@code port} of a switch or CA. */
    public static boolean send(byte[] smp, boolean isSwitch, int port) {
        int hopPtr = Smp.hopPointer(smp);
        int hopCnt = Smp.hopCount(smp);
        if (hopCnt >= Smp.MAX_HOPS) {
            return false;
        }
        if (!Smp.direction(smp)) {
            if (hopCnt != 0 && hopPtr == 0) {
                Smp.setHopPointer(smp, ++hopPtr);
                return Smp.initialPath(smp, hopPtr) == port;
            }
            if (hopPtr != 0 && hopPtr < hopCnt) {
                if (!isSwitch) {
                    return false;
                }
                Smp.setHopPointer(smp, ++hopPtr);
                return Smp.initialPath(smp, hopPtr) == port;
            }
            if (hopPtr == hopCnt) {
                Smp.setHopPointer(smp, ++hopPtr);
                return isSwitch || Smp.drDlid(smp) == Mads.PERMISSIVE_LID;
            }
            return hopPtr == hopCnt + 1;
        }
        if (hopCnt != 0 && hopPtr == hopCnt + 1) {
            Smp.setHopPointer(smp, --hopPtr);
            return Smp.returnPath(smp, hopPtr) == port;
        }
        if (2 <= hopPtr && hopPtr <= hopCnt) {
            if (!isSwitch) {
                return false;
            }
            Smp.setHopPointer(smp, --hopPtr);
            return Smp.returnPath(smp, hopPtr) == port;
        }
        if (hopPtr == 1) {
            Smp.setHopPointer(smp, --hopPtr);
            return isSwitch || Smp.drSlid(smp) == Mads.PERMISSIVE_LID;
        }
        return hopPtr == 0;
    }

    /** smi_check_local_smp: an outgoing request whose path ends at the sending node itself. */
    public static boolean isLocal(byte[] smp) {
        return !Smp.direction(smp) && Smp.hopPointer(smp) == Smp.hopCount(smp) + 1;
    }

    /** smi_check_local_returning_smp: a response that has come back to where it started. */
    public static boolean isLocalReturning(byte[] smp) {
        return Smp.direction(smp) && Smp.hopPointer(smp) == 0;
    }
}
