package io.github.esrel.fs;

/**
 * Hears the progress of a {@link FileTree#renameDirectory directory rename}. Every method has a
 * no-op default. Called on the thread running the rename; an exception thrown by a listener is
 * logged and ignored, it never breaks the rename.
 */
public interface RenameListener {

    /** Does nothing. */
    RenameListener NO_OP = new RenameListener() {};

    /**
     * The locks are held and {@code total} files were found below the directory.
     *
     * @param from the path of the directory being renamed
     * @param to the directory's new path
     * @param total the number of files to move, at least 1
     * @param token the fencing token the rename writes under
     */
    default void started(String from, String to, long total, long token) {}

    /**
     * {@code done} of {@code total} files have been rewritten. Called after each bulk request.
     *
     * @param done the files moved so far
     * @param total the files found when the rename started
     */
    default void progress(long done, long total) {}
}
