package io.github.esrel.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls the caller's listeners so that a listener that throws cannot break the job it listens to. */
public final class Listeners {

    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private Listeners() {}

    /**
     * Runs the call; logs and swallows what it throws, except errors the JVM cannot recover from.
     *
     * @param call the listener call
     * @param what names the listener and method in the log, e.g. {@code PropagationListener.onStart}
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
