package io.github.esrel.plugin.routing.action;

import static io.github.esrel.plugin.xcontent.Tokens.describe;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.elasticsearch.xcontent.XContentParseException;
import org.elasticsearch.xcontent.XContentParser;
import org.elasticsearch.xcontent.XContentParser.Token;
import org.jspecify.annotations.Nullable;

/**
 * Strict reading of request bodies with Elasticsearch's XContent: wrong types and unknown fields are
 * {@code x_content_parse_exception}s (400) pointing at the offending token, and a batch over the limit is
 * refused while it is read rather than after it was all materialized.
 */
final class BodyParser {

    private BodyParser() {}

    /** Moves to the body's first token and checks it opens an object. */
    static void startObject(XContentParser parser, String example) throws IOException {
        Token token = parser.currentToken() == null ? parser.nextToken() : parser.currentToken();
        if (token != Token.START_OBJECT) {
            throw new XContentParseException(
                    parser.getTokenLocation(),
                    "request body must be a JSON object like " + example + ", got " + describe(token));
        }
    }

    /** Checks nothing follows the body's closing brace. */
    static void endOfBody(XContentParser parser) throws IOException {
        Token token = parser.nextToken();
        if (token != null) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "unexpected " + describe(token) + " after the end of the request body");
        }
    }

    /** Reads {@code "docs": [{"id": ..., "routing": ...}, ...]}; the parser is on the array's first token. */
    static List<RoutingCalcDoc> docs(XContentParser parser, int maxDocs) throws IOException {
        if (parser.currentToken() != Token.START_ARRAY) {
            throw new XContentParseException(
                    parser.getTokenLocation(),
                    "[docs] must be an array of objects like [{\"id\": \"1\", \"routing\": \"a\"}], got "
                            + describe(parser.currentToken()));
        }
        List<RoutingCalcDoc> docs = new ArrayList<>();
        Token token;
        while ((token = parser.nextToken()) != Token.END_ARRAY) {
            if (docs.size() == maxDocs) {
                throw new IllegalArgumentException(RoutingCalculator.tooManyDocsMessage(maxDocs));
            }
            if (token != Token.START_OBJECT) {
                throw new XContentParseException(
                        parser.getTokenLocation(),
                        "[docs] entry " + docs.size()
                                + " must be an object like {\"id\": \"1\", \"routing\": \"a\"}, got "
                                + describe(token));
            }
            docs.add(doc(parser, docs.size()));
        }
        return docs;
    }

    private static RoutingCalcDoc doc(XContentParser parser, int index) throws IOException {
        String id = null;
        String routing = null;
        boolean sawId = false;
        Token token;
        while ((token = parser.nextToken()) != Token.END_OBJECT) {
            String field = parser.currentName();
            token = parser.nextToken();
            switch (field) {
                case "id" -> {
                    id = string(parser, token, "docs[" + index + "].id", false);
                    sawId = true;
                }
                case "routing" -> routing = string(parser, token, "docs[" + index + "].routing", true);
                default ->
                    throw new XContentParseException(
                            parser.getTokenLocation(),
                            "[docs] entry " + index + " has unknown field [" + field
                                    + "]; a doc has [id] and optionally [routing]");
            }
        }
        if (sawId == false) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "[docs] entry " + index + " has no [id]; every doc needs one");
        }
        String problem = RoutingCalcDoc.idProblem(id);
        if (problem != null || id == null) { // a null id has a problem
            throw new XContentParseException(parser.getTokenLocation(), "[docs] entry " + index + ": " + problem);
        }
        return new RoutingCalcDoc(id, routing);
    }

    /** A string value; numbers are refused rather than coerced, so type mistakes surface. */
    static @Nullable String string(XContentParser parser, Token token, String field, boolean nullable)
            throws IOException {
        if (token == Token.VALUE_STRING) {
            return parser.text();
        }
        if (token == Token.VALUE_NULL && nullable) {
            return null;
        }
        throw new XContentParseException(
                parser.getTokenLocation(), "[" + field + "] must be a string, got " + describe(token));
    }

    /**
     * An integer value within [min, max]. Fractions and strings are parse errors; numbers beyond the range
     * (however huge) are refused with the field's name and the accepted range.
     */
    static int integer(XContentParser parser, Token token, String field, int min, int max) throws IOException {
        if (token != Token.VALUE_NUMBER) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "[" + field + "] must be an integer, got " + describe(token));
        }
        XContentParser.NumberType type = parser.numberType();
        if (type != XContentParser.NumberType.INT
                && type != XContentParser.NumberType.LONG
                && type != XContentParser.NumberType.BIG_INTEGER) {
            throw new XContentParseException(
                    parser.getTokenLocation(), "[" + field + "] must be an integer, got [" + parser.text() + "]");
        }
        if (type == XContentParser.NumberType.INT) {
            int value = parser.intValue();
            if (value >= min && value <= max) {
                return value;
            }
        }
        // A range problem, not a syntax one: reported like the same check in validate().
        throw new IllegalArgumentException(
                field + " must be between " + min + " and " + max + ", got " + parser.text());
    }

    static XContentParseException unknownField(XContentParser parser, String field, String known) {
        return new XContentParseException(
                parser.getTokenLocation(), "unknown field [" + field + "], expected one of " + known);
    }
}
