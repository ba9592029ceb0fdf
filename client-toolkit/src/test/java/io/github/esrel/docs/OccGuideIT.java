package io.github.esrel.docs;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchAsyncClient;
import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.doc.DocRef;
import io.github.esrel.occ.BulkOutcome;
import io.github.esrel.occ.ExternalVersions;
import io.github.esrel.occ.ExternalWrite;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccAsync;
import io.github.esrel.occ.OccUnknownOutcomeException;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.Versioned;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** docs/optimistic-concurrency.md. */
@EsrelTest
class OccGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    /** A t-shirt design and its votes. */
    record Design(String name, long votes) {
        Design vote() {
            return new Design(name, votes + 1);
        }
    }

    @Test
    void shouldUpdateUpsertRoutedAndInBulk(ElasticsearchClient es) {
        // tag::occ[]
        Occ occ = Occ.of(b -> b.client(es)); // one per application: its callers share retries and writes
        occ.upsert("designs", "aurora", Design.class, () -> new Design("Aurora", 0), Design::vote); // CREATED
        Outcome<Design> voted = occ.update("designs", "aurora", Design.class, Design::vote); // UPDATED
        long votes = voted.value().votes(); // what this call's write stored: 2

        DocRef boreal = DocRef.of("designs", "boreal").withRouting("tenant-7"); // written with a routing value
        occ.upsert(boreal, Design.class, () -> new Design("Boreal", 0), Design::vote);

        BulkOutcome<Design> both = occ.bulk(Design.class) // one _mget and one _bulk per 500 documents
                .update("designs", "aurora", Design::vote)
                .update(boreal, Design::vote)
                .execute();

        Outcome<Design> tried = occ.tryUpdate(DocRef.of("designs", "aurora"), Design.class, Design::vote);
        boolean later = tried.gaveUp(); // the document kept changing past the retry policy: a value, no exception
        // end::occ[]
        assertThat(votes).isEqualTo(2);
        assertThat(both.complete()).isTrue();
        assertThat(later).isFalse();
        assertThat(occ.get(boreal, Design.class).orElseThrow().value().votes()).isEqualTo(2);
        assertThat(occ.get("designs", "aurora", Design.class)
                        .orElseThrow()
                        .value()
                        .votes())
                .isEqualTo(4);
    }

    @Test
    void shouldUpdateWithoutBlocking(ElasticsearchClient es) throws Exception {
        ElasticsearchAsyncClient asyncClient = new ElasticsearchAsyncClient(es._transport(), es._transportOptions());
        // tag::async[]
        OccAsync occ = Occ.of(b -> b.client(asyncClient)).async(); // or occ.async() of a blocking Occ
        DocRef aurora = DocRef.of("async-designs", "aurora");
        // No thread waits: the attempts run on the client's I/O threads, the backoffs on a timer.
        CompletableFuture<Long> votes = occ.upsert(aurora, Design.class, () -> new Design("Aurora", 0), Design::vote)
                .thenCompose(created -> occ.update(aurora, Design.class, Design::vote)) // chained on the outcome
                .thenApply(updated -> updated.value().votes()); // 2
        // end::async[]
        assertThat(votes.get(30, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void shouldTakeAPolicyOfItsOwnAndWriteAlone(ElasticsearchClient es) {
        // tag::options[]
        Occ patient = Occ.of(b -> b.client(es)
                .retryPolicy(RetryPolicy.of(r -> r.maxAttempts(1000) // default: 100 attempts within 30 s
                        .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(5), 2.0, Duration.ofMillis(500)))
                        .deadline(Duration.ofMinutes(2))))
                .combineWrites(false)); // each call reads and writes alone, on its own thread
        // end::options[]
        assertThat(patient.retryPolicy().maxAttempts()).isEqualTo(1000);
        patient.upsert("designs-alone", "c", Design.class, () -> new Design("Cirrus", 0), Design::vote);
        assertThat(patient.get("designs-alone", "c", Design.class)
                        .orElseThrow()
                        .value()
                        .votes())
                .isEqualTo(1);
    }

    @Test
    void shouldKeepAWriteLog(ElasticsearchClient es) throws IOException {
        // tag::write-log[]
        es.indices()
                .create(c -> c.index("ballots") // the log's field stored, not indexed
                        .mappings(m -> m.properties("_esrel_writes", p -> p.object(o -> o.enabled(false)))));
        Occ occ = Occ.of(b -> b.client(es).writeLog(true)); // each document keeps esrel's last 8 writes
        // end::write-log[]
        occ.upsert("ballots", "b-1", Design.class, () -> new Design("Ballot", 0), Design::vote);
        assertThat(occ.get("ballots", "b-1", Design.class).orElseThrow().value().votes())
                .isEqualTo(1);
    }

    @Test
    void shouldSayWhatToDoWithAnUnknownOutcome(ElasticsearchClient es) {
        Occ occ = Occ.of(b -> b.client(es));
        List<String> toCheck = new ArrayList<>();
        // tag::unknown[]
        try {
            occ.upsert("designs", "cirrus", Design.class, () -> new Design("Cirrus", 0), Design::vote);
        } catch (OccUnknownOutcomeException e) {
            // Sent, its answer lost, and the document changed since: applied or not, nobody can tell from here.
            // esrel never sends it again; read the document later and decide (a vote: cast it again only if missing).
            toCheck.add(e.outcome().id());
        }
        // end::unknown[]
        assertThat(toCheck).isEmpty();
    }

    @Test
    void shouldReplaceWhatTheCallerSaw(ElasticsearchClient es) {
        Occ occ = Occ.of(b -> b.client(es));
        occ.upsert("designs", "dusk", Design.class, () -> new Design("Dusk", 0), Design::vote);
        // tag::replace[]
        Versioned<Design> seen = occ.get("designs", "dusk", Design.class).orElseThrow(); // shown to a user
        Outcome<Design> saved =
                occ.tryReplace(seen, new Design("Dusk (edited)", seen.value().votes()));
        if (saved.status() == Outcome.Status.CONFLICT) {
            // changed since the user saw it: show the new version, never overwrite it
        }
        // end::replace[]
        assertThat(saved.status()).isEqualTo(Outcome.Status.UPDATED);
    }

    @Test
    void shouldWriteVersionsOfAnotherSystem(ElasticsearchClient es) {
        Design shirt = new Design("Eclipse", 526);
        // tag::external[]
        ExternalVersions ext = ExternalVersions.of(b -> b.client(es));
        ExternalWrite written = ext.index("catalog", "e-1", 526, shirt); // the version of the source of truth
        ExternalWrite late = ext.index("catalog", "e-1", 525, shirt); // STALE: an older version arrived late
        // end::external[]
        assertThat(written.status()).isEqualTo(ExternalWrite.Status.CREATED);
        assertThat(late.status()).isEqualTo(ExternalWrite.Status.STALE);
    }
}
