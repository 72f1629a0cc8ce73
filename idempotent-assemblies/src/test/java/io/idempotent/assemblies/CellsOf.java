package io.idempotent.assemblies;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.AnnotationBasedArgumentsProvider;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.ParameterDeclarations;

/** The arguments of a parameterised test: the cells {@link Cells} walks for one entry point. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ArgumentsSource(CellsOf.Provider.class)
@interface CellsOf {

  EntryPoint value();

  final class Provider extends AnnotationBasedArgumentsProvider<CellsOf> {
    @Override
    protected Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters, ExtensionContext context,
        CellsOf cells) {
      return Cells.of(cells.value()).map(Arguments::of);
    }
  }
}
