package io.ibemu.emulator.fault;

/**
 * What an event at a point carries for the scoping keys (dev, pid, comm, ...): asked only when a
 * rule scopes by that key, so an event costs nothing to describe while no rule looks at it.
 */
@FunctionalInterface
public interface Facts {
    /** The event's value for {@code key} in the rule's spelling (pid as a decimal), or null. */
    String get(String key);
}
