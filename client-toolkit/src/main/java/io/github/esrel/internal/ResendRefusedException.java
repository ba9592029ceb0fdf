package io.github.esrel.internal;

import org.jspecify.annotations.Nullable;

/**
 * Thrown into the low-level client when it is about to send another copy of a request an earlier copy of which may
 * have been executed (see {@link SendAttempts}); {@link ResendGuard} turns it into the caller's
 * {@link UnansweredRequestException}.
 *
 * <p>Unchecked, and without the earlier copy's failure as its cause, on purpose: the HTTP clients let a runtime
 * exception from a response consumer factory end the request, and elasticsearch-java's retries
 * ({@code RetryConfig}) retry an {@code IOException}, also one found as the cause, which would only be refused again.
 */
final class ResendRefusedException extends RuntimeException {

    private final transient @Nullable Throwable earlierFailure;

    ResendRefusedException(int copies, String last, @Nullable Throwable earlierFailure) {
        super("esrel refused to send a copy of a request again: copy " + copies + " " + last, null, false, false);
        this.earlierFailure = earlierFailure;
    }

    /** The failure of the copy before, if it failed; {@code null} if it was answered. */
    @Nullable
    Throwable earlierFailure() {
        return earlierFailure;
    }
}
