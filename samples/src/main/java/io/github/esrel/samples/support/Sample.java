package io.github.esrel.samples.support;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.io.PrintStream;

/** One runnable scenario from the seed articles. */
public interface Sample {

    /** Short name used on the command line ({@code routing}, {@code votes}, …). */
    String name();

    /** One line saying what the scenario shows. */
    String title();

    /**
     * Runs the scenario against a live cluster, printing what happens. A sample checks its own
     * claims and throws {@link IllegalStateException} when reality disagrees with what it prints.
     */
    void run(ElasticsearchClient es, PrintStream out) throws Exception;
}
