package com.example;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.occ.Occ;

/** The README's plain-Java quick start: votes on t-shirt designs, counted exactly under any concurrency. */
// tag::votes[]
public class Votes {

    public record Design(String name, long votes) {
        Design vote() {
            return new Design(name, votes + 1);
        }
    }

    private final Occ occ;

    public Votes(ElasticsearchClient es) {
        this.occ = Occ.of(b -> b.client(es)); // one per application: its callers share writes and retries
    }

    /** One more vote, from any number of threads and processes at once: none is lost, none counted twice. */
    public void vote(String design) {
        occ.upsert("designs", design, Design.class, () -> new Design(design, 0), Design::vote);
    }

    public long count(String design) {
        return occ.get("designs", design, Design.class).map(d -> d.value().votes()).orElse(0L);
    }
}
// end::votes[]
