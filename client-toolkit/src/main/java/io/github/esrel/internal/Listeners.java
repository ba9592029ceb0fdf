package io.github.esrel.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls into user listeners so that whatever they throw cannot break the operation that calls them.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public final class Listeners {

    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private Listeners() {}

    /**
     * Runs {@code call}; an exception it throws is logged (naming {@code what}) and ignored. Virtual machine
     * errors (out of memory, say) are thrown on.
     *
     * @param call the listener call
     * @param what the listener method, for the log, such as {@code DuplicateScanListener.onProgress}
     */
    public static void safely(Runnable call, String what) {
        try {
            call.run();
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vme) {
                throw vme;
            }
            log.warn("{} failed; ignored", what, e);
        }
    }
}
