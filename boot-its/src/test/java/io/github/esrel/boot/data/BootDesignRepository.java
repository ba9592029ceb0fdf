package io.github.esrel.boot.data;

import io.github.esrel.spring.data.EsrelRepository;
import org.springframework.data.elasticsearch.repository.ElasticsearchRepository;

/** The application's repository: Spring Data's, with esrel's fragment. */
// tag::repository[]
public interface BootDesignRepository
        extends ElasticsearchRepository<BootDesign, String>, EsrelRepository<BootDesign, String> {}
// end::repository[]
