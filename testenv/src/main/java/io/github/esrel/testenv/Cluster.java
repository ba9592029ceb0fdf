package io.github.esrel.testenv;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@link EsCluster} field of an {@link EsrelTest @EsrelTest} class as managed by the
 * extension.
 *
 * <ul>
 *   <li>A {@code static} field is one cluster for the whole class: started before all tests (and
 *       before {@code @BeforeAll} methods), closed after all of them, even when tests fail.
 *   <li>An instance field is a fresh cluster per test method.
 * </ul>
 *
 * The field must hold a built, not yet started {@code EsCluster}; the extension never replaces it.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Cluster {}
