package io.github.esrel.view;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import io.github.esrel.doc.DocStreamException;
import io.github.esrel.internal.Reasons;
import java.io.IOException;

/**
 * What every entry point of a view shares: its argument check for ids, and the translation of whatever
 * its requests throw into one {@link ViewException} that names the operation, the promise of the public
 * API ("fails as a whole with a {@code ViewException}").
 */
final class ViewCalls {

    /** Requests that return a value. */
    interface Call<T> {
        T call() throws IOException;
    }

    /** Requests that return nothing. */
    interface Step {
        void run() throws IOException;
    }

    private ViewCalls() {}

    /**
     * Runs {@code call}; a {@link ViewException} passes unchanged (it names its operation already),
     * anything the client or a stream throws becomes one whose message starts with {@code what}.
     */
    static <T> T call(Call<T> call, String what) {
        try {
            return call.call();
        } catch (ViewException e) {
            throw e;
        } catch (DocStreamException e) { // from the DocStreams that page through sources and views
            throw new ViewException(what + " failed: " + e.getMessage(), e.status(), e);
        } catch (ElasticsearchException e) {
            throw new ViewException(what + " failed: " + Reasons.of(e), e.status(), e);
        } catch (IOException e) {
            throw new ViewException(what + " failed: " + e, 0, e);
        }
    }

    /** {@link #call} for requests without a result. */
    static void run(Step step, String what) {
        call(
                () -> {
                    step.run();
                    return Boolean.TRUE; // no result: call's value is dropped
                },
                what);
    }
}
