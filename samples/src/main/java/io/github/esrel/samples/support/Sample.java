package io.github.esrel.samples.support;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.io.PrintStream;
import java.util.Objects;

/** One runnable scenario from the seed articles. */
public abstract class Sample {

    private final String name;
    private final String title;

    /**
     * @param name  the short name used on the command line ({@code routing}, {@code votes}, …)
     * @param title one line saying what the scenario shows
     */
    protected Sample(String name, String title) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.title = Objects.requireNonNull(title, "title cannot be null");
    }

    /** Short name used on the command line ({@code routing}, {@code votes}, …). */
    public final String name() {
        return name;
    }

    /** One line saying what the scenario shows. */
    public final String title() {
        return title;
    }

    /**
     * Runs the scenario against a live cluster, printing what happens. A sample checks its own
     * claims and throws {@link IllegalStateException} when reality disagrees with what it prints.
     */
    public abstract void run(ElasticsearchClient es, PrintStream out) throws Exception;
}
