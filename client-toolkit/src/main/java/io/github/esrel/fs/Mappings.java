package io.github.esrel.fs;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;

/** The two index layouts of a {@link FileTree}. */
final class Mappings {

    /** {@code _meta} keys recording how the index was laid out. */
    static final String FENCING_KEY = "esrel_fs_fencing";

    static final String TREE_KEY = "esrel_fs_tree";

    private Mappings() {}

    /** {@code path.tree} as a multi-field of {@code path}, analysed by {@code path_hierarchy} (seed 000). */
    static String withTokenizer(FileTree.Fencing fencing) {
        return """
            {"settings": {"analysis": {
               "tokenizer": {"paths": {"type": "path_hierarchy", "delimiter": "/"}},
               "analyzer": {"paths": {"type": "custom", "tokenizer": "paths"}}}},
             "mappings": {"_meta": {"%s": "%s", "%s": "tokenizer"}, "dynamic": "strict", "properties": {
               "name": {"type": "keyword"},
               "path": {"type": "keyword", "fields": {"tree": {"type": "text", "analyzer": "paths", "search_analyzer": "keyword"}}},
               "contents": {"type": "text"}}}}
            """.formatted(FENCING_KEY, fencing, TREE_KEY);
    }

    /**
     * {@code path.tree} as its own keyword field filled by the client ({@code subobjects: false} lets a
     * field named {@code path.tree} live beside {@code path}).
     */
    static String clientComputed(FileTree.Fencing fencing) {
        return """
            {"mappings": {"_meta": {"%s": "%s", "%s": "client"}, "dynamic": "strict", "subobjects": false, "properties": {
               "name": {"type": "keyword"},
               "path": {"type": "keyword"},
               "path.tree": {"type": "keyword"},
               "contents": {"type": "text"}}}}
            """.formatted(FENCING_KEY, fencing, TREE_KEY);
    }

    /** The cluster lacks the analysis-common module, which provides {@code path_hierarchy}. */
    static boolean isMissingTokenizer(ElasticsearchException e) {
        String text = String.valueOf(e.getMessage());
        return e.status() == 400 && text.contains("path_hierarchy");
    }
}
