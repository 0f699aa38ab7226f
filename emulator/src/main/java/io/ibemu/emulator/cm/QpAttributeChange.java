package io.ibemu.emulator.cm;

import io.ibemu.emulator.hca.QpAttributeMask;
import io.ibemu.emulator.hca.QpAttributes;

/**
 * What ib_cm_init_qp_attr fills: the attributes and the {@link QpAttributeMask} bits that select
 * them, ready for modify_qp.
 */
public record QpAttributeChange(QpAttributes attributes, int mask) {
}
