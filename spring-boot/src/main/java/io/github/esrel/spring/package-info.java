/**
 * esrel's exceptions as Spring's: {@link io.github.esrel.spring.SpringExceptionTranslator} turns an OCC give-up into an
 * {@link io.github.esrel.spring.EsrelOptimisticLockingFailureException} and a busy tree lock into an
 * {@link io.github.esrel.spring.EsrelCannotAcquireLockException}, both from {@code org.springframework.dao} (spring-tx),
 * so that Spring code (retry templates, {@code @Retryable}, exception handlers) handles them as it handles its own data
 * access exceptions. The Boot starters set the translator on the {@code Occ} and {@code TreeLocks} beans; any other
 * Spring application passes it to the builders itself.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/spring.md#exceptions">Spring Boot and Spring Data: exceptions</a>.
 */
@NullMarked
package io.github.esrel.spring;

import org.jspecify.annotations.NullMarked;
