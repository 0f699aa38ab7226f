package io.ibemu.emulator.agent;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.Smp;

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
        if (hopCnt >= Smp.PATH_HOPS) {
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
                return isSwitch || Smp.drDlid(smp) == Smp.PERMISSIVE_LID;
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
            return isSwitch || Smp.drSlid(smp) == Smp.PERMISSIVE_LID;
        }
        return hopPtr == 0;
    }

    /** What a node does with a directed-route SMP it has accepted (smi_check_forward_dr_smp). */
    public enum Next {
        /** Hand it to this node's SMA or SM. */
        LOCAL,
        /** The directed-route part ends here: it leaves LID-routed, or goes up to the SMA/SM. */
        SEND,
        /** An intermediate hop: a switch relays it on {@link #forwardPort}. */
        FORWARD
    }

    /**
     * __smi_handle_dr_smp_recv: an SMP that arrived on {@code port}. Records the arrival port in
     * the return path on the way out, checks the next hop exists, and takes the hop pointer down
     * to 0 when a response reaches a permissive DrSLID.
     */
    public static boolean receive(byte[] smp, boolean isSwitch, int port, int portCount) {
        int hopPtr = Smp.hopPointer(smp);
        int hopCnt = Smp.hopCount(smp);
        if (hopCnt >= Smp.PATH_HOPS) {
            return false;
        }
        if (!Smp.direction(smp)) {
            if (hopCnt != 0 && hopPtr == 0) {
                return false;
            }
            if (hopPtr != 0 && hopPtr < hopCnt) {
                if (!isSwitch) {
                    return false;
                }
                Smp.setReturnPath(smp, hopPtr, port);
                return Smp.initialPath(smp, hopPtr + 1) <= portCount;
            }
            if (hopPtr == hopCnt) {
                if (hopCnt != 0) {
                    Smp.setReturnPath(smp, hopPtr, port);
                }
                return isSwitch || Smp.drDlid(smp) == Smp.PERMISSIVE_LID;
            }
            return hopPtr == hopCnt + 1;
        }
        if (hopCnt != 0 && hopPtr == hopCnt + 1) {
            Smp.setHopPointer(smp, --hopPtr);
            return Smp.returnPath(smp, hopPtr) == port;
        }
        if (2 <= hopPtr && hopPtr <= hopCnt) {
            return isSwitch && Smp.returnPath(smp, hopPtr - 1) <= portCount;
        }
        if (hopPtr == 1) {
            if (Smp.drSlid(smp) == Smp.PERMISSIVE_LID) {
                Smp.setHopPointer(smp, 0);
                return true;
            }
            return isSwitch;
        }
        return hopPtr == 0;
    }

    /** smi_check_forward_dr_smp: after {@link #receive}, where the SMP goes next. */
    public static Next next(byte[] smp) {
        int hopPtr = Smp.hopPointer(smp);
        int hopCnt = Smp.hopCount(smp);
        if (!Smp.direction(smp)) {
            if (hopPtr != 0 && hopPtr < hopCnt) {
                return Next.FORWARD;
            }
            if (hopPtr == hopCnt) {
                return Smp.drDlid(smp) == Smp.PERMISSIVE_LID ? Next.SEND : Next.LOCAL;
            }
            return hopPtr == hopCnt + 1 ? Next.SEND : Next.LOCAL;
        }
        if (2 <= hopPtr && hopPtr <= hopCnt) {
            return Next.FORWARD;
        }
        if (hopPtr == 1) {
            return Smp.drSlid(smp) != Smp.PERMISSIVE_LID ? Next.SEND : Next.LOCAL;
        }
        return Next.LOCAL;
    }

    /** smi_get_fwd_port: the port a switch relays a {@link Next#FORWARD} SMP on. */
    public static int forwardPort(byte[] smp) {
        int hopPtr = Smp.hopPointer(smp);
        return Smp.direction(smp) ? Smp.returnPath(smp, hopPtr - 1) : Smp.initialPath(smp, hopPtr + 1);
    }

    /**
     * Whether a MAD travels by its LRH DLID: every class but directed route, and a
     * directed-route SMP before its first hop (a LID-routed head, DrSLID not permissive) or
     * after its last one on the way back (a LID-routed tail to DrSLID).
     */
    public static boolean isLidRouted(byte[] mad) {
        if (Mad.mgmtClass(mad) != MgmtClass.SUBN_DIRECTED_ROUTE) {
            return true;
        }
        return Smp.hopPointer(mad) == 0 && (Smp.direction(mad) ? Smp.drSlid(mad) != Smp.PERMISSIVE_LID
                : Smp.hopCount(mad) != 0);
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
