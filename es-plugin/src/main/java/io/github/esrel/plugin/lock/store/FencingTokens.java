package io.github.esrel.plugin.lock.store;

/**
 * The rule every fencing token is issued by: the next token of a namespace is {@code max(last_token + 1, now *
 * 1000)}. The round numbers of the grant store's heads follow it too, so that they keep increasing as tokens do.
 */
public final class FencingTokens {

    /**
     * Tokens never fall below the clock in microsecond-sized steps ({@code now * 1000}). Together with
     * {@code last_token + 1} this keeps tokens increasing even if the table is lost (the lock index deleted,
     * an older snapshot restored) as long as clocks do not go back: a new table starts above every token a
     * previous one can have reached, since no table issues anywhere near 1000 tokens per millisecond.
     */
    public static final long PER_MILLI = 1000;

    private FencingTokens() {}

    /**
     * The token issued after {@code lastToken} at {@code now}: {@code max(lastToken + 1, now * 1000)}.
     *
     * @param lastToken the last token issued, 0 if none
     * @param now       the current time, epoch milliseconds (a value out of range counts as 0)
     * @return the next fencing token, greater than {@code lastToken}
     * @throws IllegalStateException when the 64-bit space is used up (in some 290,000 years)
     */
    public static long next(long lastToken, long now) {
        if (lastToken == Long.MAX_VALUE) {
            throw new IllegalStateException("the fencing token space is exhausted");
        }
        long clock = now > 0 && now < Long.MAX_VALUE / PER_MILLI ? now * PER_MILLI : 0;
        return Math.max(lastToken + 1, clock);
    }
}
