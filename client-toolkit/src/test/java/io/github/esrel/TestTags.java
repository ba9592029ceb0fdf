package io.github.esrel;

/** JUnit tags of the client's tests that {@code ./run-tests} runs on some passes only. */
public final class TestTags {

    /**
     * Tests that prove line-independent code under sustained load (threads racing through thousands of requests for
     * tens of seconds): contention on tree locks, 16 writers on one document, a write pool kept full. They run in the
     * default line's pass (9.5.3, {@code esrel-client} on its newest client); the other lines' passes leave them out
     * ({@code -DexcludedGroups=load}) and run every other test of the suite, which is what differs between lines.
     */
    public static final String LOAD = "load";

    private TestTags() {}
}
