# One INTERFACE target carrying the project's warning flags and, optionally, sanitizers.
add_library(shardscope_warnings INTERFACE)
add_library(shardscope::warnings ALIAS shardscope_warnings)
target_compile_options(shardscope_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wconversion -Wno-sign-conversion>)

if(SHARDSCOPE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(SHARDSCOPE_BUILD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SHARDSCOPE_BUILD_FUZZ needs clang (use the `fuzz` preset)")
  endif()
  # Everything is instrumented for coverage; only the fuzzer executables link libFuzzer's main().
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
