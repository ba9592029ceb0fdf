package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

// tag::test[]
@EsrelTest
class VotesIT {

    @Cluster // a real Elasticsearch node with the esrel plugin, started for this class and stopped after it
    static final EsCluster cluster = EsCluster.builder().build();

    @Test
    void shouldCountEveryVoteOfEightConcurrentVoters(ElasticsearchClient es) throws Exception {
        Votes votes = new Votes(es);
        ExecutorService voters = Executors.newFixedThreadPool(8);
        try {
            for (Future<Object> vote : voters.invokeAll(IntStream.range(0, 400)
                    .mapToObj(i -> (Callable<Object>) () -> { votes.vote("aurora"); return null; })
                    .collect(Collectors.toList()), 2, TimeUnit.MINUTES)) {
                vote.get(); // a vote that failed fails the test
            }
        } finally {
            voters.shutdownNow();
        }
        assertEquals(400, votes.count("aurora"));
    }
}
// end::test[]
