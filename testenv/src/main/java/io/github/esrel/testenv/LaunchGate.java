package io.github.esrel.testenv;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Lets node launches through until it is closed, and closes only once no launch is under way: a launch either
 * happens before {@link #close()} returns, so that whoever closed it sees the node and can kill it, or is refused.
 * {@link NodeReaper} closes it when the JVM exits, before it kills the open clusters: a test thread still running
 * then must not start a node that nothing would stop.
 */
final class LaunchGate {

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by lock

    /**
     * Runs {@code launch} unless the gate is closed.
     *
     * @param what names what would be launched, for the exception
     * @throws EsClusterException if the gate is closed
     */
    void launch(String what, Runnable launch) {
        lock.readLock().lock();
        try {
            if (closed) {
                throw new EsClusterException(
                        "not starting " + what + ": the JVM is shutting down, and a node started now would outlive it");
            }
            launch.run();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Waits for the launches under way, then refuses every later one. */
    void close() {
        lock.writeLock().lock();
        try {
            closed = true;
        } finally {
            lock.writeLock().unlock();
        }
    }
}
