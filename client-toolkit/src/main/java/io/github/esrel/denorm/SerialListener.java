package io.github.esrel.denorm;

import io.github.esrel.internal.Listeners;
import java.util.function.Consumer;

/**
 * One job's listener, called by one thread at a time. With more than one bulk in flight (the default) the writer
 * threads report conflicts, rejections and failures while the job's thread reports progress: the user's listener
 * still sees one call after another, never two at once, so it needs no locking of its own for one job. A listener
 * that throws cannot break the job: what it throws is logged.
 *
 * <p>One instance per job run: its calls are serialized on it.
 *
 * @param listener the user's listener
 * @param jobId the job it is told about
 */
record SerialListener(PropagationListener listener, String jobId) {

    /**
     * Calls the listener once no other call of this job is in it.
     *
     * @param call the call
     * @param method the listener method it calls, for the log
     */
    void tell(Consumer<PropagationListener> call, String method) {
        Listeners.safely(
                () -> {
                    synchronized (this) {
                        call.accept(listener);
                    }
                },
                "PropagationListener." + method);
    }
}
