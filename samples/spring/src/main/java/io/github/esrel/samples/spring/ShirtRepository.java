package io.github.esrel.samples.spring;

import io.github.esrel.spring.data.EsrelRepository;
import org.springframework.data.elasticsearch.repository.ElasticsearchRepository;

/** Spring Data's repository, with esrel's fragment: {@code update}, {@code upsert}, {@code tryUpdate} and joins. */
public interface ShirtRepository extends ElasticsearchRepository<Shirt, String>, EsrelRepository<Shirt, String> {}
