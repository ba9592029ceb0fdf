package io.github.esrel.routing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Reference;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Finds the document keys (index, id) that occur more than once among those {@link #add added}, in memory
 * bounded by {@code maxIdsInMemory} whatever their number: the pure part of {@link DuplicateIdScanner}.
 *
 * <p>How. Every key is reduced to a 64-bit fingerprint ({@link IdHash#fingerprint}), counted in a
 * {@link FingerprintTable}; a key is a candidate when its fingerprint is counted the second time, and only
 * then is its id kept (up to {@code maxCandidates} of them). When the expected number of keys fits the budget,
 * that is all: one table, no disk. Otherwise every key is first written to one of {@code P} spill files chosen
 * by an independent hash ({@link IdHash#partition}), {@code P = ceil(1.25 * expected / maxIdsInMemory)} (at
 * most {@value #MAX_FANOUT}), so that every occurrence of a key lands in the same file; then the files are
 * counted one at a time, each in a table of its own. A file that still holds more than the budget (a skewed
 * hash, or more keys than expected) is split again with the next level's hash before it is counted.
 *
 * <p>Why it is exact: the occurrences of a key all land in one file at every level, so its count there is its
 * count overall; a fingerprint counted twice is either the same key twice or, with probability below
 * {@code n^2 / 2^65} for the {@code n} keys of one table, two keys sharing a fingerprint, which
 * {@link DuplicateIdScanner} rules out by reading the candidate's copies.
 *
 * <p>Spill files live in a directory of their own, deleted by {@link #close()}, also after a failure.
 * Not thread-safe but for {@link #prepare}: the caller serializes {@link #add} and {@link #finish}.
 */
final class DuplicateFinder implements Closeable {

    /** Spill files written at once: each holds a write buffer of {@value #WRITE_BUFFER} bytes. */
    static final int MAX_FANOUT = 1024;

    static final int WRITE_BUFFER = 8192;
    /** A file this deep is counted whatever its size: its keys are few distinct ids with many copies. */
    static final int MAX_LEVEL = 6;

    /** A key that occurs more than once (or shares its fingerprint with another key). */
    record Candidate(String index, String id) {}

    /**
     * What {@link #finish} found.
     *
     * @param candidates the first {@code maxCandidates} keys seen a second time
     * @param duplicated distinct fingerprints counted more than once
     * @param extraCopies occurrences beyond the first, over every fingerprint
     * @param partitions tables counted (1 without spilling)
     * @param spilledBytes bytes written to spill files, 0 without spilling
     * @param largestTableBytes the bytes of the largest fingerprint table built
     */
    record Found(
            List<Candidate> candidates,
            long duplicated,
            long extraCopies,
            int partitions,
            long spilledBytes,
            long largestTableBytes) {}

    /** Told after each counted partition: how many are done and how many are known (splits add more). */
    interface PartitionProgress {
        void partitionsDone(int done, int known);
    }

    private final int maxIdsInMemory;
    private final int maxCandidates;
    private final Map<String, Integer> ordinals = new HashMap<>();
    private final List<String> indices = new ArrayList<>();
    private final List<Candidate> candidates = new ArrayList<>();
    private long duplicated;
    private long extraCopies;
    private long largestTableBytes;

    // In memory: one table for every key.
    private @Nullable FingerprintTable table;

    // Spilled: one file per partition.
    private final @Nullable Path dir;
    private final List<Path> files = new ArrayList<>();
    private DataOutputStream @Nullable [] writers;
    private final long[] records;
    private long spilledBytes;
    private int partitionsCounted;
    private boolean finished;

    /**
     * @param expected how many keys will be added (the snapshot's document count)
     * @param maxIdsInMemory the most fingerprints held in memory at once
     * @param maxCandidates the most candidate ids kept
     * @param spillParent where the spill directory is created, if one is needed
     * @throws UncheckedIOException if the spill directory or files cannot be created
     */
    DuplicateFinder(long expected, int maxIdsInMemory, int maxCandidates, Path spillParent) {
        this.maxIdsInMemory = maxIdsInMemory;
        this.maxCandidates = maxCandidates;
        if (expected <= maxIdsInMemory) {
            this.table = new FingerprintTable(expected);
            this.dir = null;
            this.records = new long[0];
            return;
        }
        int partitions = fanout(expected, maxIdsInMemory);
        this.records = new long[partitions];
        try {
            Files.createDirectories(Objects.requireNonNull(spillParent, "spillParent cannot be null"));
            this.dir = Files.createTempDirectory(spillParent, "esrel-dupscan-");
            DataOutputStream[] out = new DataOutputStream[partitions];
            this.writers = out;
            for (int p = 0; p < partitions; p++) {
                Path f = dir.resolve("p0-" + p);
                files.add(f);
                out[p] = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(f), WRITE_BUFFER));
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot create spill files under " + spillParent + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Partitions for {@code count} keys and a budget: each expected at 80 % of the budget, 2 to {@value #MAX_FANOUT}. */
    static int fanout(long count, int maxIdsInMemory) {
        long p = (count + count / 4 + maxIdsInMemory - 1) / maxIdsInMemory;
        return (int) Math.max(2, Math.min(MAX_FANOUT, p));
    }

    /** Whether keys go to spill files rather than to one table in memory. */
    boolean spilling() {
        return dir != null;
    }

    /** The first-level partition count: 1 in memory. */
    int partitions() {
        return dir == null ? 1 : records.length; // one count per spill file
    }

    /** The spill directory, or {@code null} in memory. */
    @Nullable
    Path directory() {
        return dir;
    }

    /**
     * Adds one occurrence of a key: {@code add(prepare(List.of(index), List.of(id)))}.
     *
     * @throws UncheckedIOException if a spill file cannot be written
     * @throws IllegalStateException after {@link #finish}
     */
    void add(String index, String id) {
        add(prepare(List.of(index), List.of(id)));
    }

    /**
     * Hashes a page of keys, the costly part of adding them, without touching the table or the spill files: so
     * that several threads can prepare pages at once and {@link #add(Prepared)} them in turn. Thread-safe.
     *
     * @param indices the index of each key
     * @param ids the id of each key, as many as indices
     */
    Prepared prepare(List<String> indices, List<String> ids) {
        int n = ids.size();
        int[] ords = new int[n];
        long[] hashes = new long[n];
        String lastIndex = null;
        int lastOrdinal = -1;
        boolean spill = dir != null;
        int partitions = spill ? records.length : 1;
        for (int i = 0; i < n; i++) {
            String index = indices.get(i);
            if (!index.equals(lastIndex)) {
                lastIndex = index;
                lastOrdinal = ordinal(index);
            }
            ords[i] = lastOrdinal;
            String id = ids.get(i);
            hashes[i] = spill ? IdHash.partition(lastOrdinal, id, 0, partitions) : IdHash.fingerprint(lastOrdinal, id);
        }
        return new Prepared(ords, hashes, ids);
    }

    /**
     * A page of keys with their index ordinals and, in memory, their fingerprints, or, when spilling, their
     * partitions.
     */
    record Prepared(int[] ordinals, long[] hashes, List<String> ids) {}

    /**
     * Adds one occurrence of each key of a prepared page. Not thread-safe: the caller serializes it.
     *
     * @throws UncheckedIOException if a spill file cannot be written
     * @throws IllegalStateException after {@link #finish}
     */
    void add(Prepared page) {
        if (finished) {
            throw new IllegalStateException("finish() was called");
        }
        List<String> ids = page.ids();
        for (int i = 0; i < ids.size(); i++) {
            int ordinal = page.ordinals()[i];
            if (table != null) {
                if (table.add(page.hashes()[i]) == 2) {
                    candidate(ordinal, ids.get(i));
                }
                continue;
            }
            int p = (int) page.hashes()[i];
            try {
                write(Objects.requireNonNull(writers, "closed")[p], ordinal, ids.get(i));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write spill file " + files.get(p) + ": " + e.getMessage(), e);
            }
            records[p]++;
        }
    }

    /**
     * Counts every partition (spilled ones one at a time, splitting those over the budget) and returns what was
     * found. Spill files are deleted as soon as they are counted.
     *
     * @throws UncheckedIOException if a spill file cannot be read or written
     */
    Found finish(PartitionProgress progress) {
        if (finished) {
            throw new IllegalStateException("finish() was called already");
        }
        finished = true;
        if (table == null) {
            countSpilled(progress);
        } else {
            absorb(table);
            partitionsCounted = 1;
            progress.partitionsDone(1, 1);
            table = null;
        }
        return new Found(
                List.copyOf(candidates), duplicated, extraCopies, partitionsCounted, spilledBytes, largestTableBytes);
    }

    private void countSpilled(PartitionProgress progress) {
        record Part(Path file, long records, int level) {}
        Deque<Part> work = new ArrayDeque<>();
        try {
            DataOutputStream[] spilled = Objects.requireNonNull(writers, "closed");
            for (int p = 0; p < spilled.length; p++) {
                spilled[p].close();
                spilledBytes += Files.size(files.get(p));
                work.add(new Part(files.get(p), records[p], 0));
            }
            writers = null;
            int known = work.size();
            while (!work.isEmpty()) {
                Part part = work.poll();
                if (part.records() > maxIdsInMemory && part.level() < MAX_LEVEL) {
                    // Split on the next level's hash; the sub-partitions go first, to keep the disk use low.
                    int fanout = fanout(part.records(), maxIdsInMemory);
                    long[] counts = split(part.file(), part.records(), part.level() + 1, fanout);
                    known += fanout - 1;
                    for (int p = fanout - 1; p >= 0; p--) {
                        work.addFirst(new Part(sub(part.file(), p), counts[p], part.level() + 1));
                    }
                } else {
                    FingerprintTable counted = count(part.file(), part.records());
                    partitionsCounted++;
                    progress.partitionsDone(partitionsCounted, known);
                    // Reachable until progress was told (one table at a time, also then): a listener that
                    // measures the heap sees the scan's peak.
                    Reference.reachabilityFence(counted);
                }
                Files.deleteIfExists(part.file());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("spilling ids to " + dir + " failed: " + e.getMessage(), e);
        }
    }

    private static Path sub(Path file, int p) {
        return file.resolveSibling(file.getFileName() + "-" + p);
    }

    private long[] split(Path file, long n, int level, int fanout) throws IOException {
        DataOutputStream[] out = new DataOutputStream[fanout];
        long[] counts = new long[fanout];
        try (DataInputStream in = reader(file)) {
            for (int p = 0; p < fanout; p++) {
                out[p] = new DataOutputStream(
                        new BufferedOutputStream(Files.newOutputStream(sub(file, p)), WRITE_BUFFER));
            }
            for (long i = 0; i < n; i++) {
                int ordinal = readOrdinal(in);
                String id = in.readUTF();
                int p = IdHash.partition(ordinal, id, level, fanout);
                write(out[p], ordinal, id);
                counts[p]++;
            }
        } finally {
            for (int p = 0; p < fanout; p++) {
                if (out[p] != null) {
                    out[p].close();
                    spilledBytes += Files.size(sub(file, p));
                }
            }
        }
        return counts;
    }

    private FingerprintTable count(Path file, long n) throws IOException {
        FingerprintTable t = new FingerprintTable(n);
        try (DataInputStream in = reader(file)) {
            for (long i = 0; i < n; i++) {
                int ordinal = readOrdinal(in);
                String id = in.readUTF();
                if (t.add(IdHash.fingerprint(ordinal, id)) == 2) {
                    candidate(ordinal, id);
                }
            }
        }
        absorb(t);
        return t;
    }

    private void absorb(FingerprintTable t) {
        duplicated += t.duplicated();
        extraCopies += t.extraCopies();
        largestTableBytes = Math.max(largestTableBytes, t.bytes());
    }

    private void candidate(int ordinal, String id) {
        if (candidates.size() < maxCandidates) {
            candidates.add(new Candidate(indexName(ordinal), id));
        }
    }

    private synchronized String indexName(int ordinal) {
        return indices.get(ordinal);
    }

    private synchronized int ordinal(String index) {
        Integer o = ordinals.get(index);
        if (o == null) {
            o = indices.size();
            ordinals.put(index, o);
            indices.add(index);
        }
        return o;
    }

    private static DataInputStream reader(Path file) throws IOException {
        return new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
    }

    /** A record: the index ordinal as a base-128 varint, then the id in modified UTF-8 ({@code writeUTF}). */
    private static void write(DataOutputStream out, int ordinal, String id) throws IOException {
        int v = ordinal;
        while ((v & ~0x7F) != 0) {
            out.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
        out.writeUTF(id);
    }

    private static int readOrdinal(DataInputStream in) throws IOException {
        int v = 0;
        for (int shift = 0; ; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
    }

    /** Closes and deletes every spill file and the spill directory; never throws. */
    @Override
    public void close() {
        table = null;
        if (writers != null) {
            for (DataOutputStream w : writers) {
                if (w != null) {
                    try {
                        w.close();
                    } catch (IOException ignored) {
                        // deleted below either way
                    }
                }
            }
            writers = null;
        }
        if (dir != null) {
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path f : entries) {
                Files.deleteIfExists(f);
            }
        } catch (IOException ignored) {
            // the directory is gone or unreadable: nothing more can be done here
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // left for the operating system's temporary-file cleanup
        }
    }
}
