package io.github.esrel.plugin.lock.rest;

import java.io.IOException;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.xcontent.XContentParser;

/** The body of a tree lock request, which is required. */
final class RestBodies {

    private RestBodies() {}

    /** @param example a valid body, for the message when there is none */
    static XContentParser parser(RestRequest request, String example) throws IOException {
        if (request.hasContent() == false) {
            throw new IllegalArgumentException("request body is required, e.g. " + example);
        }
        return request.contentParser();
    }
}
