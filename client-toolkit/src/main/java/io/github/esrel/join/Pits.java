package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Time;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens and closes the points in time (PIT) that joins page with, each a round trip in the join's
 * {@link Trips}. One place for both sides of a join, so that every PIT is opened and released alike.
 */
final class Pits {

    private static final Logger log = LoggerFactory.getLogger(Pits.class);

    private Pits() {}

    /**
     * Opens a point in time on {@code index}.
     *
     * @return its id
     * @throws JoinException if the index is missing or the cluster fails
     */
    static String open(ElasticsearchClient es, String index, Time keepAlive, Trips trips) {
        try {
            trips.add("open point in time [" + index + "]");
            return es.openPointInTime(o -> o.index(index).keepAlive(keepAlive)).id();
        } catch (ElasticsearchException e) {
            throw Errors.translate("opening a point in time", index, e);
        } catch (IOException e) {
            throw Errors.io("opening a point in time", index, e);
        }
    }

    /**
     * Closes a point in time. Best effort: one that cannot be closed expires with its keep-alive, and
     * a failure to close must not hide the join's answer (or the failure being thrown).
     *
     * @param index names the point in time in the round-trip log and in the warning
     */
    static void close(ElasticsearchClient es, String pitId, String index, Trips trips) {
        try {
            trips.add("close point in time [" + index + "]");
            es.closePointInTime(c -> c.id(pitId));
        } catch (Exception e) {
            log.warn("closing the point in time on [{}] failed; it expires with its keep-alive", index, e);
        }
    }
}
