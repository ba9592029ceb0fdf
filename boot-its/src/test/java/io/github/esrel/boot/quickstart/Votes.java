package io.github.esrel.boot.quickstart;

import io.github.esrel.occ.Occ;
import org.springframework.stereotype.Service;

/** The README's Spring Boot quick start: a service on the starter's {@code Occ} bean. */
// tag::votes[]
@Service
public class Votes {

    public record Design(String name, long votes) {
        Design vote() {
            return new Design(name, votes + 1);
        }
    }

    private final Occ occ;

    public Votes(Occ occ) { // the starter's bean, on the client Boot builds from spring.elasticsearch.*
        this.occ = occ;
    }

    /** From any number of threads and instances: no vote is lost, none counted twice. */
    public void vote(String design) { // OptimisticLockingFailureException when the retries run out
        occ.upsert("designs", design, Design.class, () -> new Design(design, 0), Design::vote);
    }
}
// end::votes[]
