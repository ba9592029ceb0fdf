package io.github.esrel.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pure part of the duplicate-id scan: hashing, fingerprint counting, partitioning and spilling. */
class DuplicateFinderTest {

    @TempDir
    Path tmp;

    @Test
    void shouldFindExactlyTheDuplicatedKeysInMemory() {
        Keys keys = Keys.random(20_000, 25, 7, 1);
        try (DuplicateFinder f = new DuplicateFinder(keys.all.size(), 1_000_000, 1000, tmp)) {
            assertThat(f.spilling()).isFalse();
            keys.all.forEach(k -> f.add(k.index(), k.id()));
            DuplicateFinder.Found found = f.finish((d, k) -> {});
            assertExact(found, keys);
            assertThat(found.partitions()).isEqualTo(1);
            assertThat(found.spilledBytes()).isZero();
        }
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void shouldFindTheSameKeysWhenATinyBudgetSpillsToManyPartitions() throws IOException {
        Keys keys = Keys.random(20_000, 25, 7, 2);
        List<int[]> progress = new ArrayList<>();
        try (DuplicateFinder f = new DuplicateFinder(keys.all.size(), 100, 1000, tmp)) {
            assertThat(f.spilling()).isTrue();
            // 20,039 keys, 80 expected per file: 251 files (a file that gets more than 100 is split again).
            assertThat(f.partitions()).isEqualTo(251);
            keys.all.forEach(k -> f.add(k.index(), k.id()));
            assertThat(spillFiles()).hasSize(251);
            DuplicateFinder.Found found = f.finish((d, k) -> progress.add(new int[] {d, k}));
            assertExact(found, keys);
            assertThat(found.partitions()).isGreaterThanOrEqualTo(251);
            assertThat(found.spilledBytes()).isGreaterThan(20_000L * 8);
            assertThat(spillFiles()).as("each file is deleted once counted").isEmpty();
        }
        assertThat(tmp).isEmptyDirectory();
        assertThat(progress).isNotEmpty();
        for (int i = 0; i < progress.size(); i++) {
            assertThat(progress.get(i)[0]).isEqualTo(i + 1);
        }
        assertThat(progress.get(progress.size() - 1)[0]).isEqualTo(progress.get(progress.size() - 1)[1]);
    }

    @Test
    void shouldSplitAPartitionOverTheBudgetAgainAndStayExact() {
        Keys keys = Keys.random(30_000, 40, 10, 3);
        // Expecting 300 keys, it makes 4 partitions; 30,000 arrive, so each is split again, and those again.
        try (DuplicateFinder f = new DuplicateFinder(300, 100, 1000, tmp)) {
            assertThat(f.partitions()).isEqualTo(4);
            keys.all.forEach(k -> f.add(k.index(), k.id()));
            int[] last = new int[2];
            DuplicateFinder.Found found = f.finish((d, k) -> {
                assertThat(d).isGreaterThan(last[0]);
                last[0] = d;
                last[1] = k;
            });
            assertExact(found, keys);
            assertThat(found.partitions()).isGreaterThan(30_000 / 100);
            assertThat(last[0]).isEqualTo(last[1]).isEqualTo(found.partitions());
            assertThat(found.largestTableBytes())
                    .as("no table was built for more than the budget")
                    .isLessThanOrEqualTo(FingerprintTable.capacityFor(100) * 10L);
        }
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void shouldStayExactWhenSeveralThreadsPreparePagesAndAddThemInTurn() throws Exception {
        Keys keys = Keys.random(40_000, 30, 10, 5);
        for (int budget : new int[] {1_000_000, 500}) {
            try (DuplicateFinder f = new DuplicateFinder(keys.all.size(), budget, 1000, tmp)) {
                int threads = 4;
                int page = 777;
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
                List<java.util.concurrent.Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int first = t;
                    done.add(pool.submit(() -> {
                        for (int from = first * page; from < keys.all.size(); from += threads * page) {
                            List<DuplicateFinder.Candidate> slice =
                                    keys.all.subList(from, Math.min(keys.all.size(), from + page));
                            DuplicateFinder.Prepared p = f.prepare(
                                    slice.stream()
                                            .map(DuplicateFinder.Candidate::index)
                                            .toList(),
                                    slice.stream()
                                            .map(DuplicateFinder.Candidate::id)
                                            .toList());
                            synchronized (f) {
                                f.add(p);
                            }
                        }
                        return null;
                    }));
                }
                for (var d : done) {
                    d.get();
                }
                pool.shutdown();
                assertExact(f.finish((d, k) -> {}), keys);
            }
        }
    }

    @Test
    void shouldCapTheCandidatesButCountEveryDuplicate() {
        Keys keys = Keys.random(5_000, 30, 5, 4);
        for (int budget : new int[] {1_000_000, 100}) {
            try (DuplicateFinder f = new DuplicateFinder(keys.all.size(), budget, 10, tmp)) {
                keys.all.forEach(k -> f.add(k.index(), k.id()));
                DuplicateFinder.Found found = f.finish((d, k) -> {});
                assertThat(found.candidates()).hasSize(10);
                assertThat(keys.duplicated()).containsAll(found.candidates());
                assertThat(found.duplicated()).isEqualTo(35);
                assertThat(found.extraCopies()).isEqualTo(30 + 5 * 2);
            }
        }
    }

    @Test
    void shouldNotTakeTheSameIdInTwoIndicesForADuplicate() {
        for (int budget : new int[] {1_000_000, 100}) {
            try (DuplicateFinder f = new DuplicateFinder(2_000, budget, 100, tmp)) {
                for (int i = 0; i < 1_000; i++) {
                    f.add("a", "id-" + i);
                    f.add("b", "id-" + i);
                }
                f.add("b", "id-7");
                DuplicateFinder.Found found = f.finish((d, k) -> {});
                assertThat(found.candidates()).containsExactly(new DuplicateFinder.Candidate("b", "id-7"));
                assertThat(found.duplicated()).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldDeleteTheSpillFilesWhenClosedWithoutFinishing() throws IOException {
        Path dir;
        try (DuplicateFinder f = new DuplicateFinder(10_000, 100, 100, tmp)) {
            for (int i = 0; i < 10_000; i++) {
                f.add("i", "id-" + i);
            }
            dir = f.directory();
            assertThat(dir).isDirectory();
            assertThat(spillFiles()).isNotEmpty();
        }
        assertThat(dir).doesNotExist();
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void shouldRefuseKeysAfterFinishing() {
        try (DuplicateFinder f = new DuplicateFinder(1, 100, 100, tmp)) {
            f.finish((d, k) -> {});
            assertThatThrownBy(() -> f.add("i", "1")).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldCountFingerprintsAndGrowPastTheExpectedSize() {
        FingerprintTable t = new FingerprintTable(4);
        for (long k = 1; k <= 10_000; k++) {
            assertThat(t.add(k * 0x9E3779B97F4A7C15L)).isEqualTo(1);
        }
        assertThat(t.add(5 * 0x9E3779B97F4A7C15L)).isEqualTo(2);
        assertThat(t.add(5 * 0x9E3779B97F4A7C15L)).isEqualTo(3);
        assertThat(t.add(6 * 0x9E3779B97F4A7C15L)).isEqualTo(2);
        assertThat(t.size()).isEqualTo(10_000);
        assertThat(t.duplicated()).isEqualTo(2);
        assertThat(t.extraCopies()).isEqualTo(3);
        assertThat(FingerprintTable.capacityFor(1_000_000)).isEqualTo(1 << 21);
        assertThat(FingerprintTable.capacityFor(0)).isEqualTo(16);
    }

    @Test
    void shouldSpreadIdsEvenlyOverPartitionsAtEveryLevel() {
        int partitions = 64;
        int n = 200_000;
        for (int level = 0; level < 3; level++) {
            int[] counts = new int[partitions];
            for (int i = 0; i < n; i++) {
                counts[IdHash.partition(0, "order-" + i, level, partitions)]++;
            }
            double mean = (double) n / partitions;
            for (int c : counts) {
                assertThat((double) c).as("level %d", level).isBetween(mean * 0.9, mean * 1.1);
            }
        }
        // Levels are independent: the keys of one level-0 partition spread over every level-1 partition.
        int[] sub = new int[8];
        for (int i = 0; i < n; i++) {
            String id = "order-" + i;
            if (IdHash.partition(0, id, 0, 8) == 3) {
                sub[IdHash.partition(0, id, 1, 8)]++;
            }
        }
        for (int c : sub) {
            assertThat(c).isBetween(n / 64 * 9 / 10, n / 64 * 11 / 10);
        }
    }

    @Test
    void shouldGiveDistinctFingerprintsToAMillionIdsAndStableValues() {
        Set<Long> seen = new HashSet<>(2_000_000);
        for (int i = 0; i < 1_000_000; i++) {
            assertThat(seen.add(IdHash.fingerprint(0, "doc-" + i))).isTrue();
        }
        assertThat(IdHash.fingerprint(0, "123"))
                .isEqualTo(IdHash.fingerprint(0, new String("123")))
                .isNotEqualTo(IdHash.fingerprint(1, "123"))
                .isNotZero();
        assertThat(IdHash.hash64("", 0)).isEqualTo(IdHash.hash64("", 0));
        assertThat(IdHash.hash64("\uD83D\uDE00", 0))
                .as("a surrogate pair is two code units")
                .isNotEqualTo(IdHash.hash64("\uD83D", 0));
        for (int p : new int[] {1, 2, 3, 1000, 1024}) {
            assertThat(IdHash.partition(0, "x", 0, p)).isBetween(0, p - 1);
        }
    }

    @Test
    void shouldReadTheShardNumberOfAHit() {
        assertThat(DuplicateIdScanner.parseShard("[dupscan-orders][3]")).isEqualTo(3);
        assertThat(DuplicateIdScanner.parseShard("[node-1][weird]index][12]")).isEqualTo(12);
        assertThat(DuplicateIdScanner.parseShard("7")).isEqualTo(7);
        assertThatThrownBy(() -> DuplicateIdScanner.parseShard("[x][y]")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldPlanPartitionsFromTheCountAndTheBudget() {
        assertThat(DuplicateFinder.fanout(1_000_001, 1_000_000)).isEqualTo(2);
        assertThat(DuplicateFinder.fanout(10_000_000, 1_000_000)).isEqualTo(13);
        assertThat(DuplicateFinder.fanout(5_000_000_000L, 1_000_000)).isEqualTo(DuplicateFinder.MAX_FANOUT);
    }

    private static void assertExact(DuplicateFinder.Found found, Keys keys) {
        assertThat(found.candidates()).containsExactlyInAnyOrderElementsOf(keys.duplicated());
        assertThat(found.duplicated()).isEqualTo(keys.duplicated().size());
        assertThat(found.extraCopies()).isEqualTo(keys.extraCopies());
    }

    private List<Path> spillFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.walk(tmp)) {
            all.filter(Files::isRegularFile).forEach(files::add);
        }
        return files;
    }

    /** Unique keys, some of them added twice and some three times, in random order. */
    record Keys(List<DuplicateFinder.Candidate> all, Map<DuplicateFinder.Candidate, Integer> copies) {
        static Keys random(int unique, int twice, int thrice, long seed) {
            SplittableRandom r = new SplittableRandom(seed);
            List<DuplicateFinder.Candidate> all = new ArrayList<>();
            Map<DuplicateFinder.Candidate, Integer> copies = new HashMap<>();
            for (int i = 0; i < unique; i++) {
                StringBuilder id = new StringBuilder("k").append(i).append('-');
                for (int j = r.nextInt(12); j > 0; j--) {
                    id.append(r.nextInt(5) == 0 ? (char) (0xA0 + r.nextInt(0x3000)) : (char) ('a' + r.nextInt(26)));
                }
                DuplicateFinder.Candidate key = new DuplicateFinder.Candidate("idx", id.toString());
                int n = i < twice ? 2 : i < twice + thrice ? 3 : 1;
                for (int c = 0; c < n; c++) {
                    all.add(key);
                }
                copies.put(key, n);
            }
            Collections.shuffle(all, new java.util.Random(seed));
            return new Keys(all, copies);
        }

        Set<DuplicateFinder.Candidate> duplicated() {
            Set<DuplicateFinder.Candidate> d = new HashSet<>();
            copies.forEach((k, n) -> {
                if (n > 1) {
                    d.add(k);
                }
            });
            return d;
        }

        long extraCopies() {
            return copies.values().stream().mapToLong(n -> n - 1).sum();
        }
    }
}
