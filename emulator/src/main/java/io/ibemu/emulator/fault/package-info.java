/**
 * Fault injection: the rule grammar ({@link io.ibemu.emulator.fault.FaultRule}), the rule table
 * with its hit counts ({@link io.ibemu.emulator.fault.Faults}), and the decision whether a rule
 * hits an event. The layers consult it at defined points (a uverbs command about to run, ...);
 * nothing below learns that rules exist.
 */
package io.ibemu.emulator.fault;
