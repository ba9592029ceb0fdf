/**
 * Seed 000's file system on Elasticsearch: {@link io.github.esrel.fs.FileTree} writes, reads and greps files by path
 * and renames directories under tree locks, every write of a rename fenced by the lock's token, so that a stalled
 * renamer whose lease ended cannot overwrite what the next one wrote.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/file-trees.md">File trees</a>.
 */
@NullMarked
package io.github.esrel.fs;

import org.jspecify.annotations.NullMarked;
