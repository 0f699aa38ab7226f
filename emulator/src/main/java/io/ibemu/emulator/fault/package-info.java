/**
 * Fault injection: the rule grammar ({@link io.ibemu.emulator.fault.FaultRule}), the rule table
 * with its hit counts ({@link io.ibemu.emulator.fault.Faults}), and the decision whether a rule
 * hits an event. Imports the HCA model (hca) and the kernel errnos; imported by uverbs (its
 * command and method points) and cli (the daemon owns the one table). It attaches to the model's
 * hooks ({@code Hca.completionFault}, {@code Hca.raise}); the model never imports it.
 */
package io.ibemu.emulator.fault;
