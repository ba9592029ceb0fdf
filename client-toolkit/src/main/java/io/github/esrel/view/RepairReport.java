package io.github.esrel.view;

import java.time.Duration;

/**
 * What {@link MaterializedView#repair()} found and fixed.
 *
 * @param intentsReplayed unfinished intents (a crash between a source write and its view update, or a
 *     failed rebuild) that were replayed and cleared
 * @param sourcesChecked source documents whose view was compared with them
 * @param lagging views missing or built from older source versions than the current ones
 * @param viewsChecked views checked for a source that no longer exists
 * @param orphans views whose source is gone
 * @param rebuild what the rebuilds of all of the above did
 * @param took wall time
 */
public record RepairReport(
        long intentsReplayed,
        long sourcesChecked,
        long lagging,
        long viewsChecked,
        long orphans,
        RebuildResult rebuild,
        Duration took) {}
