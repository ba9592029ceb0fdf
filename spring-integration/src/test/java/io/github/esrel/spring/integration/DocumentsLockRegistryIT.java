package io.github.esrel.spring.integration;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.EsrelTest;

/** The registry's cases on {@code TreeLocks.Backend.DOCUMENTS}. */
@EsrelTest
class DocumentsLockRegistryIT extends AbstractLockRegistryIT {

    @Override
    TreeLocks.Backend backend() {
        return TreeLocks.Backend.DOCUMENTS;
    }
}
