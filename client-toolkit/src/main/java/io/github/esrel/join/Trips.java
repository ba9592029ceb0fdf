package io.github.esrel.join;

import java.util.ArrayList;
import java.util.List;

/** The requests one join or grouping sent, in order: each is one round trip to the cluster. */
final class Trips {

    private final List<String> log = new ArrayList<>();

    void add(String request) {
        log.add(request);
    }

    int count() {
        return log.size();
    }

    List<String> list() {
        return List.copyOf(log);
    }
}
