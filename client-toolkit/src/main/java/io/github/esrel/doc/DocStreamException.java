package io.github.esrel.doc;

import io.github.esrel.EsrelException;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DocStream} could not read a page: a search failed with something other than a rejection, or
 * rejections outlasted the stream's retry policy. {@link #status()} is Elasticsearch's answer (404 for a
 * missing index), or 0 for an I/O failure; the cause keeps the client's exception.
 */
public class DocStreamException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, naming the index
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public DocStreamException(String message, int status, @Nullable Throwable cause) {
        super(message, status, cause);
    }
}
