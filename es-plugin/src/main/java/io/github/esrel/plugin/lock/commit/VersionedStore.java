package io.github.esrel.plugin.lock.commit;

import org.elasticsearch.action.ActionListener;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link GroupCommitter} keeps its states: one per key, read together with its version and replaced
 * only while that version is still current (compare-and-set), as Elasticsearch replaces a document with
 * {@code if_seq_no} and {@code if_primary_term}.
 *
 * <p>Listeners may be completed on any thread where work may run, never on a network thread: the committer
 * decides and answers right there.
 *
 * @param <S> the state kept per key, immutable
 */
public interface VersionedStore<S> {

    /**
     * A state as read: the value and the version a replacement must be conditional on.
     *
     * @param state       the value; the initial one for a key never written
     * @param exists      whether the key has been written; a replacement of an absent key is a create, which
     *                    fails with a conflict if another writer created it first
     * @param seqNo       the version: sequence number of the read
     * @param primaryTerm the version: primary term of the read
     * @param <S>         the state type
     */
    record Versioned<S>(S state, boolean exists, long seqNo, long primaryTerm) {
        /**
         * A key never written, whose state is {@code initial}.
         *
         * @param initial the state of a key never written
         * @param <S>     the state type
         * @return an absent state at no version
         */
        public static <S> Versioned<S> absent(S initial) {
            return new Versioned<>(initial, false, 0, 0);
        }
    }

    /** How a {@link GroupCommitter} reacts to a failed read or write. */
    enum Failure {
        /** Another writer replaced the state since it was read: read again and redo the decisions at once. */
        CONFLICT,
        /** The store may be back soon (no primary, node gone, overloaded): retry after a backoff. */
        TRANSIENT,
        /** Retrying cannot help: fail the waiters. */
        PERMANENT
    }

    /**
     * Reads the state of {@code key}, {@link Versioned#absent} with the initial state if it was never written.
     *
     * @param key      the key
     * @param listener gets the state and its version, or the failure
     */
    void read(String key, ActionListener<Versioned<S>> listener);

    /**
     * Replaces the state of {@code key} by {@code next} if its version is still that of {@code read} (creates it
     * if {@code read} was absent), or fails with what {@link #classify} calls a {@link Failure#CONFLICT}.
     * A failure other than a conflict does not tell whether the write was applied.
     *
     * @param key      the key
     * @param read     the state as read, with its version
     * @param next     the state to store
     * @param listener gets {@code null} once stored, or the failure
     */
    void write(String key, Versioned<S> read, S next, ActionListener<Void> listener);

    /**
     * What a failure of {@link #read} or {@link #write} means for the committer.
     *
     * @param failure what the read or write failed with
     * @return how the committer reacts
     */
    Failure classify(Exception failure);

    /**
     * What the retries of one mutation met before its deadline passed: how many attempts failed and how, the
     * last failure of each kind, and how long it was tried.
     *
     * @param conflicts         attempts whose write met a {@link Failure#CONFLICT}
     * @param transientFailures attempts whose read or write failed with a {@link Failure#TRANSIENT} failure
     * @param lastConflict      the last conflict, null if none
     * @param lastTransient     the last transient failure, null if none
     * @param triedNanos        from the submission of the mutation to giving up
     * @param slowestAttemptNanos the longest one failed attempt (its read and its write) took
     */
    record Retries(
            int conflicts,
            int transientFailures,
            @Nullable Exception lastConflict,
            @Nullable Exception lastTransient,
            long triedNanos,
            long slowestAttemptNanos) {}

    /**
     * The failure to give a waiter whose retries ran out: it must say what really happened (contention, or the
     * store being unavailable, and the last cause).
     *
     * @param key     the key whose state the mutation was changing
     * @param retries what the attempts met
     * @return the failure to give the waiter
     */
    Exception gaveUp(String key, Retries retries);
}
