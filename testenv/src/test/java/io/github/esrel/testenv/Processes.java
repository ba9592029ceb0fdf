package io.github.esrel.testenv;

import java.nio.file.Path;
import java.util.List;

/** Finds Elasticsearch processes from the outside, as `ps` would. */
final class Processes {

    private Processes() {}

    /** Live Elasticsearch server processes whose command line mentions {@code dir}. */
    static List<ProcessHandle> elasticsearchUnder(Path dir) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info()
                        .commandLine()
                        .filter(c -> c.contains("org.elasticsearch.bootstrap") && c.contains(dir.toString()))
                        .isPresent())
                .toList();
    }
}
