package io.github.esrel;

/**
 * Turns what an esrel entry point throws into the exception its caller's framework expects: with the Spring Boot
 * starter, a version-conflict give-up becomes Spring's {@code OptimisticLockingFailureException} and a lock wait that
 * ran out its {@code CannotAcquireLockException}, while esrel itself keeps no Spring dependency. Set one on the
 * builders that accept it ({@code Occ.Builder.exceptionTranslator}, {@code TreeLocks.Builder.exceptionTranslator}).
 *
 * <p>A translator returns either its argument or a new exception that keeps the argument as its cause, so that no
 * detail (the {@code Outcome}, the conflicts) is lost. It must not throw.
 */
@FunctionalInterface
public interface ExceptionTranslator {

    /** Leaves every exception as it is. */
    ExceptionTranslator NONE = e -> e;

    /**
     * The exception to throw instead of {@code e}.
     *
     * @param e what esrel was about to throw, never {@code null}
     * @return {@code e} itself, or an exception of the caller's framework with {@code e} as its cause
     */
    RuntimeException translate(RuntimeException e);
}
