package io.github.esrel.internal;

import java.io.IOException;

/**
 * A request that changes something was sent and its answer never came, and esrel did not let the client send it
 * again (to another host, or by elasticsearch-java's retries), since the copy sent may have been executed and
 * another could execute it a second time: whether it was applied is not known. Every esrel operation reports such
 * a request as it reports a lost answer on a client of one host (an {@code UNKNOWN} outcome, say).
 *
 * <p>Internal: not part of esrel's API, may change without notice; callers see an {@link IOException}.
 */
public final class UnansweredRequestException extends IOException {

    UnansweredRequestException(String request, ResendRefusedException refusal) {
        super(
                request + " was sent and its answer did not come back: " + refusal.getMessage()
                        + "; a second copy could apply it twice, so esrel did not let the client send it to another"
                        + " host",
                refusal.earlierFailure());
    }
}
