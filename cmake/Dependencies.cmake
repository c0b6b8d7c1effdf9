# Finds every dependency that code uses, once; a missing optional one switches off only its part and says why.
find_package(PkgConfig REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 QUIET CONFIG)
if(NOT CLI11_FOUND)
  message(FATAL_ERROR "CLI11 not found: install the Debian package libcli11-dev (scripts/install-deps.sh does)")
endif()

set(SHARDSCOPE_REASONS "")
macro(shardscope_reason part text)
  list(APPEND SHARDSCOPE_REASONS "${part}|${text}")
endmacro()

# SimGrid: Debian ships only simgrid.pc.
set(SHARDSCOPE_HAVE_SIMGRID OFF)
if(SHARDSCOPE_WITH_SIMGRID)
  pkg_check_modules(SIMGRID QUIET IMPORTED_TARGET simgrid>=3.32)
  if(SIMGRID_FOUND)
    set(SHARDSCOPE_HAVE_SIMGRID ON)
    shardscope_reason("SimGrid" "found ${SIMGRID_VERSION}: sim/ is built")
  else()
    shardscope_reason("SimGrid" "not found (install libsimgrid-dev): sim/ is off")
  endif()
else()
  shardscope_reason("SimGrid" "off by SHARDSCOPE_WITH_SIMGRID=OFF")
endif()

# Qt6 (gui/), CUDA + NCCL and MPI (validate/) are not looked up until those parts have code: their
# SHARDSCOPE_WITH_* options are reserved and change nothing yet.
shardscope_reason("Qt6, CUDA+NCCL, MPI" "not looked up: gui/ and validate/ have no code yet")

# Test and benchmark frameworks.
if(SHARDSCOPE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
set(SHARDSCOPE_HAVE_BENCHMARK OFF)
if(SHARDSCOPE_BUILD_BENCH)
  find_package(benchmark QUIET)
  if(benchmark_FOUND)
    set(SHARDSCOPE_HAVE_BENCHMARK ON)
    shardscope_reason("Google Benchmark" "found: bench/ is built")
  else()
    shardscope_reason("Google Benchmark" "not found (install libbenchmark-dev): bench/ is off")
  endif()
endif()
