package io.github.esrel.fs;

import io.github.esrel.path.TreePath;
import org.jspecify.annotations.Nullable;

/**
 * A file of a {@link FileTree}: one Elasticsearch document, stored as
 * <pre>{@code
 * {"name": "README.txt", "path": "/clinton/projects", "path.tree": ["/clinton", "/clinton/projects"],
 *  "contents": "..."}
 * }</pre>
 * {@code path} is the directory, {@code path.tree} every directory at or above it (computed by the
 * client when the cluster has no {@code path_hierarchy} tokenizer, by the tokenizer otherwise).
 *
 * @param id the document id; stable across renames
 * @param path the file's full path
 * @param contents the file's text; null if the stored document has none
 * @param version the document's {@code _version}: the fencing token of its last writer under
 *     {@link FileTree.Fencing#EXTERNAL_VERSION}
 */
public record FileDoc(String id, TreePath path, @Nullable String contents, long version) {

    /**
     * The file name: the last segment of its path.
     *
     * @return the name, such as {@code README.txt}
     */
    public String name() {
        return path.name();
    }

    /**
     * The directory holding the file.
     *
     * @return the parent of {@link #path()}
     */
    public TreePath directory() {
        return path.parent().orElse(TreePath.ROOT);
    }
}
