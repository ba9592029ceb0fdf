package io.github.esrel.plugin.lock.it;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An invariant checker for tree locks, independent of the plugin's own conflict logic: clients record a grant
 * when its 200 arrives and drop it before they send its release, so each recorded interval lies inside the
 * interval the server held the grant. If the server never lets conflicting grants overlap, no two recorded
 * intervals of conflicting grants overlap either, whatever the timing.
 */
final class LockChecker {

    /** A grant as a client saw it: from its 200 ({@code enter}) to just before its release ({@code exit}). */
    record Held(String path, String mode, String owner, long token, long enter, long exit) {}

    private final List<Held> current = new ArrayList<>();
    private final List<Held> history = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private long clock;

    /** Records a grant just acquired, and a violation for every recorded grant it conflicts with. */
    synchronized Held enter(String path, String mode, String owner, long token) {
        Held held = new Held(path, mode, owner, token, ++clock, Long.MAX_VALUE);
        for (Held h : current) {
            if (conflict(h.path, h.mode, path, mode)) {
                violations.add("granted " + mode + " " + path + " to " + owner + " (token " + token + ") while "
                        + h.owner + " held " + h.mode + " " + h.path + " (token " + h.token + ")");
            }
            if (h.token == token) {
                violations.add("token " + token + " issued twice");
            }
        }
        current.add(held);
        return held;
    }

    /** Drops a grant about to be released. */
    synchronized void exit(Held held) {
        current.remove(held);
        history.add(new Held(held.path, held.mode, held.owner, held.token, held.enter, ++clock));
    }

    synchronized List<String> violations() {
        List<String> all = new ArrayList<>(violations);
        // Fencing: a grant that started after a conflicting one ended has a greater token.
        for (Held a : history) {
            for (Held b : history) {
                if (a.exit < b.enter && conflict(a.path, a.mode, b.path, b.mode) && a.token >= b.token) {
                    all.add("token " + b.token + " for " + b.path + " came after token " + a.token + " for " + a.path);
                }
            }
        }
        Set<Long> tokens = new HashSet<>();
        for (Held h : history) {
            if (tokens.add(h.token) == false) {
                all.add("token " + h.token + " issued twice");
            }
        }
        return all;
    }

    synchronized int granted() {
        return history.size() + current.size();
    }

    synchronized long maxToken() {
        long max = 0;
        for (Held h : history) {
            max = Math.max(max, h.token);
        }
        for (Held h : current) {
            max = Math.max(max, h.token);
        }
        return max;
    }

    /**
     * Whether two locks conflict, straight from the definition: each takes shared on its proper ancestors
     * and its mode on its path; two locks on one path conflict unless both are shared.
     */
    static boolean conflict(String pathA, String modeA, String pathB, String modeB) {
        List<String[]> a = locks(pathA, modeA);
        List<String[]> b = locks(pathB, modeB);
        for (String[] x : a) {
            for (String[] y : b) {
                if (x[0].equals(y[0]) && (x[1].equals("exclusive") || y[1].equals("exclusive"))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<String[]> locks(String path, String mode) {
        List<String[]> locks = new ArrayList<>();
        if (path.equals("/") == false) {
            locks.add(new String[] {"/", "shared"});
            int slash = path.indexOf('/', 1);
            while (slash > 0) {
                locks.add(new String[] {path.substring(0, slash), "shared"});
                slash = path.indexOf('/', slash + 1);
            }
        }
        locks.add(new String[] {path, mode});
        return locks;
    }
}
