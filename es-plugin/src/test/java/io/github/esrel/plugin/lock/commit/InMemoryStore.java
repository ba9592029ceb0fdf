package io.github.esrel.plugin.lock.commit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.elasticsearch.action.ActionListener;

/**
 * A {@link VersionedStore} in memory with compare-and-set by sequence number, as Elasticsearch does it for one
 * document, and the failures of a real store on demand: conflicts from another writer, transient and
 * permanent failures, and failed writes that were applied all the same. Several committers (nodes) may share
 * one; it is thread-safe. It completes listeners through {@code completer}, never in the caller's stack.
 */
public class InMemoryStore<S> implements VersionedStore<S> {

    /** What a write gets when the version it was read at is not current any more. */
    public static final class Conflict extends RuntimeException {
        public Conflict(String message) {
            super(message);
        }
    }

    /** A failure that may heal (a missing primary, say). */
    public static final class Unavailable extends RuntimeException {
        public Unavailable(String message) {
            super(message);
        }
    }

    /** What {@link #gaveUp} gives: the retries as the committer reported them. */
    public static final class GaveUp extends RuntimeException {
        public final String key;
        public final Retries retries;

        public GaveUp(String key, Retries retries) {
            super(
                    "gave up on " + key + ": " + retries,
                    retries.lastTransient() != null ? retries.lastTransient() : retries.lastConflict());
            this.key = key;
            this.retries = retries;
        }
    }

    /** A failure for the next write: {@code applied} writes the state all the same, as a lost acknowledgement does. */
    private record WriteFault(RuntimeException failure, boolean applied) {}

    private final S initial;
    private final Executor completer;
    private final Map<String, Versioned<S>> documents = new HashMap<>();
    private final Map<String, List<S>> history = new HashMap<>();
    private final ArrayDeque<RuntimeException> readFaults = new ArrayDeque<>();
    private final ArrayDeque<WriteFault> writeFaults = new ArrayDeque<>();
    private final ArrayDeque<UnaryOperator<S>> interferences = new ArrayDeque<>();
    private final List<Runnable> heldReads = new ArrayList<>();
    private boolean holdReads;
    private double transientFailureRate;
    private int reads;
    private int writeAttempts;

    public InMemoryStore(S initial, Executor completer) {
        this.initial = initial;
        this.completer = completer;
    }

    @Override
    public void read(String key, ActionListener<Versioned<S>> listener) {
        Runnable completion;
        synchronized (this) {
            reads++;
            RuntimeException fault = readFaults.poll();
            if (fault == null && transientFailureRate > 0 && Math.random() < transientFailureRate) {
                fault = new Unavailable("random read failure");
            }
            if (fault != null) {
                RuntimeException failure = fault;
                completion = () -> listener.onFailure(failure);
            } else {
                Versioned<S> read = documents.getOrDefault(key, Versioned.absent(initial));
                completion = () -> listener.onResponse(read);
            }
            if (holdReads) {
                heldReads.add(completion);
                return;
            }
        }
        completer.execute(completion);
    }

    @Override
    public void write(String key, Versioned<S> read, S next, ActionListener<Void> listener) {
        RuntimeException failure = null;
        synchronized (this) {
            writeAttempts++;
            UnaryOperator<S> foreign = interferences.poll();
            if (foreign != null) {
                store(key, foreign.apply(current(key).state()));
            }
            WriteFault fault = writeFaults.poll();
            if (fault == null && transientFailureRate > 0 && Math.random() < transientFailureRate) {
                fault = new WriteFault(new Unavailable("random write failure"), Math.random() < 0.5);
            }
            Versioned<S> current = current(key);
            if (current.exists() != read.exists() || current.seqNo() != read.seqNo()) {
                failure = new Conflict("[" + key + "] is at " + current.seqNo() + ", not " + read.seqNo());
            } else if (fault == null || fault.applied()) {
                store(key, next);
            }
            if (failure == null && fault != null) {
                failure = fault.failure();
            }
        }
        RuntimeException result = failure;
        completer.execute(() -> {
            if (result == null) {
                listener.onResponse(null);
            } else {
                listener.onFailure(result);
            }
        });
    }

    @Override
    public Failure classify(Exception failure) {
        if (failure instanceof Conflict) {
            return Failure.CONFLICT;
        }
        return failure instanceof Unavailable ? Failure.TRANSIENT : Failure.PERMANENT;
    }

    @Override
    public Exception gaveUp(String key, Retries retries) {
        return new GaveUp(key, retries);
    }

    private Versioned<S> current(String key) {
        return documents.getOrDefault(key, Versioned.absent(initial));
    }

    private void store(String key, S state) {
        Versioned<S> current = current(key);
        documents.put(key, new Versioned<>(state, true, current.exists() ? current.seqNo() + 1 : 0, 1));
        history.computeIfAbsent(key, k -> new ArrayList<>()).add(state);
    }

    /** The stored state of {@code key}. */
    public synchronized S state(String key) {
        return current(key).state();
    }

    /** Every state written to {@code key}, in order, by anyone. */
    public synchronized List<S> history(String key) {
        return List.copyOf(history.getOrDefault(key, List.of()));
    }

    /** Changes {@code key} as another writer would, at once. */
    public synchronized void writeDirectly(String key, UnaryOperator<S> change) {
        store(key, change.apply(current(key).state()));
    }

    /** Makes another writer change the document right before the next write lands, which then conflicts. */
    public synchronized void interfereBeforeNextWrite(UnaryOperator<S> change) {
        interferences.add(change);
    }

    public synchronized void failNextRead(RuntimeException failure) {
        readFaults.add(failure);
    }

    /** Fails the next write with {@code failure}; {@code applied} stores its state all the same. */
    public synchronized void failNextWrite(RuntimeException failure, boolean applied) {
        writeFaults.add(new WriteFault(failure, applied));
    }

    /** Fails this share of reads and writes with {@link Unavailable}, half of the failed writes applied. */
    public synchronized void failTransientlyAtRate(double rate) {
        transientFailureRate = rate;
    }

    /** Parks the answers of reads until {@link #releaseReads}. */
    public synchronized void holdReads() {
        holdReads = true;
    }

    public void releaseReads() {
        List<Runnable> held;
        synchronized (this) {
            holdReads = false;
            held = new ArrayList<>(heldReads);
            heldReads.clear();
        }
        held.forEach(completer::execute);
    }

    public synchronized int reads() {
        return reads;
    }

    public synchronized int writeAttempts() {
        return writeAttempts;
    }

    /** The writes that stored a state, including those of {@link #writeDirectly} and interferences. */
    public synchronized int writes(String key) {
        return history.getOrDefault(key, List.of()).size();
    }
}
