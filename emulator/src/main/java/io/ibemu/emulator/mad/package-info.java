/**
 * MAD codecs, the ABI as data: each attribute is a {@link io.ibemu.emulator.mad.Layout} of (field,
 * bit offset, bit width) rows in the spec's big-endian bit numbering, declared once in its record,
 * and a {@link io.ibemu.emulator.mad.RecordCodec} maps the record's components onto it. Positions
 * follow OpenSM's ib_types.h; labels are libibmad's (what infiniband-diags prints). Imports
 * nothing of ibemu; imported by {@code fabric} (the SMA and PMA), {@code agent}, {@code hca},
 * {@code sysfs} and {@code control}.
 */
package io.ibemu.emulator.mad;
