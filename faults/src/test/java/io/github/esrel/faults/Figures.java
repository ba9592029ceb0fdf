package io.github.esrel.faults;

/**
 * The one-line figures every fault test prints (to stdout, which Failsafe keeps in
 * {@code target/failsafe-reports/*-output.txt}), for the table of fault × capability:
 * {@code FIGURE | fault | capability | operations | violations | recovery ms | notes}.
 */
final class Figures {

    private Figures() {}

    /**
     * Prints one row.
     *
     * @param operations what the capability did through the fault
     * @param violations broken guarantees, which the test then requires to be 0
     * @param recoveryMs how long the capability took to answer (or finish) again after the fault, -1 if not measured
     * @param notes anything the row needs to be read right
     */
    static void row(String fault, String capability, long operations, long violations, long recoveryMs, String notes) {
        System.out.printf(
                "FIGURE | %s | %s | %d | %d | %s | %s%n",
                fault, capability, operations, violations, recoveryMs < 0 ? "-" : Long.toString(recoveryMs), notes);
        System.out.flush();
    }
}
