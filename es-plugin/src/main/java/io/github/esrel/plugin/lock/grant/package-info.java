/**
 * What a tree lock is, in the words every other part of the plugin uses: a {@link
 * io.github.esrel.plugin.lock.grant.Grant} of a {@link io.github.esrel.plugin.lock.grant.LockMode} on a {@link
 * io.github.esrel.plugin.lock.grant.TreePath} to an owner, with its fencing token and lease; who asks to change one
 * ({@link io.github.esrel.plugin.lock.grant.Caller}); grant ids and the released ones remembered. Depends on no other
 * part of the plugin.
 */
@NullMarked
package io.github.esrel.plugin.lock.grant;

import org.jspecify.annotations.NullMarked;
