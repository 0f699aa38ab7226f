package io.ibemu.emulator.hca;

/**
 * A BIND_MW work request's bind (IBA 10.6.7.2, ibv_mw_bind_info): the window by its current
 * rkey, the rkey it gets ({@code newRkey}: only its low byte is taken, as the window keeps its index), the region
 * by its lkey, the range bound (length 0 unbinds a type 1 window) and the remote access granted.
 */
public record MwBind(int mwRkey, int newRkey, int mrLkey, long addr, long length, int access) {
}
