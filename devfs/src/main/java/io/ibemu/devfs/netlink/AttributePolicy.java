package io.ibemu.devfs.netlink;

/**
 * One row of a family's {@code struct nla_policy} table: the attribute number, its kind and, for
 * strings and binary data, the length limit ({@code .len}).
 */
public record AttributePolicy(int type, Kind kind, int maxLength) {

    /** The nla_policy types the RDMA families use, with their exact size where they have one. */
    public enum Kind {
        UNSPEC(0), U8(1), U16(2), U32(4), U64(8), S32(4), S64(8), NUL_STRING(0), NESTED(0), BINARY(0);

        /** nla_attr_len: the length an attribute of this kind has, 0 when it varies. */
        public final int size;

        Kind(int size) {
            this.size = size;
        }
    }
}
