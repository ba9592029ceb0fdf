/**
 * The guide's snippets (README.md, docs/): each is a tagged region ({@code // tag::name[]} ... {@code // end::name[]})
 * of a test here, run against a real node like every other IT, and {@code tools/Docs.java check} (the architecture
 * module's DocsTest) fails when a page and its region differ.
 */
package io.github.esrel.docs;
