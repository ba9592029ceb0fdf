package io.github.esrel.spring;

import io.github.esrel.ExceptionTranslator;
import io.github.esrel.lock.TreeLockException;
import io.github.esrel.occ.OccConflictException;

/**
 * esrel's exceptions as Spring's {@code org.springframework.dao} ones: an {@link OccConflictException} (an update
 * that gave up on version conflicts) becomes an {@link EsrelOptimisticLockingFailureException}, a
 * {@link TreeLockException} of status 409 (a lock still busy when the wait ran out) an
 * {@link EsrelCannotAcquireLockException}. Everything else is returned unchanged: I/O failures, refusals and
 * other statuses keep esrel's types, which carry what Spring's do not (the status, whether a retry may help).
 *
 * <pre>{@code
 * Occ occ = Occ.of(b -> b.client(es).exceptionTranslator(new SpringExceptionTranslator()));
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class SpringExceptionTranslator implements ExceptionTranslator {

    /** The status of a busy lock ({@code AcquireResult.orThrow()}). */
    private static final int BUSY = 409;

    /** Creates the translator. */
    public SpringExceptionTranslator() {}

    @Override
    public RuntimeException translate(RuntimeException e) {
        if (e instanceof OccConflictException conflict) {
            return new EsrelOptimisticLockingFailureException(conflict);
        }
        if (e instanceof TreeLockException lock && lock.status() == BUSY) {
            return new EsrelCannotAcquireLockException(lock);
        }
        return e;
    }

    @Override
    public String toString() {
        return "SpringExceptionTranslator";
    }
}
