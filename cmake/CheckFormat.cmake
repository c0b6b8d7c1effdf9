# Fails listing every tracked *.cpp / *.hpp file that clang-format would change (`--dry-run --Werror`).
# Usage: cmake -DCLANG_FORMAT=<clang-format> -DSOURCE_DIR=<repository root> -P CheckFormat.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT CLANG_FORMAT OR CLANG_FORMAT MATCHES "NOTFOUND$")
  message(FATAL_ERROR "clang-format not found: install the Debian package clang-format "
                      "(scripts/install-deps.sh does) and re-run cmake")
endif()
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "CheckFormat.cmake: pass -DSOURCE_DIR=...")
endif()

# The files git tracks (plus new files not yet added, unless ignored); without git, a glob of the source folders.
set(files "")
find_program(GIT git)
if(EXISTS "${SOURCE_DIR}/.git" AND GIT)
  execute_process(
    COMMAND "${GIT}" -C "${SOURCE_DIR}" ls-files --cached --others --exclude-standard -- "*.cpp" "*.hpp"
    OUTPUT_VARIABLE listing RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0)
    string(REPLACE "\n" ";" files "${listing}")
    list(FILTER files EXCLUDE REGEX "^$")
    set(how "git ls-files")
  endif()
endif()
if(NOT how)
  file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*.cpp" "${SOURCE_DIR}/*.hpp")
  list(FILTER files EXCLUDE REGEX "^(build|build-[^/]*|out)/")
  set(how "a glob (no git checkout)")
endif()
list(SORT files)
list(LENGTH files n_files)
if(n_files EQUAL 0)
  message(FATAL_ERROR "no *.cpp / *.hpp files found under ${SOURCE_DIR}")
endif()

# One clang-format over every file first (seconds); only when it fails, one per file to name the bad ones.
set(present "")
foreach(file IN LISTS files)
  if(EXISTS "${SOURCE_DIR}/${file}")  # deleted but not yet staged files are skipped
    list(APPEND present "${file}")
  endif()
endforeach()
execute_process(
  COMMAND "${CLANG_FORMAT}" --dry-run --Werror --style=file ${present}
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE all_rc OUTPUT_QUIET ERROR_QUIET)
if(all_rc EQUAL 0)
  set(present "")
endif()

set(bad "")
foreach(file IN LISTS present)
  if(NOT EXISTS "${SOURCE_DIR}/${file}")  # deleted but not yet staged
    continue()
  endif()
  execute_process(
    COMMAND "${CLANG_FORMAT}" --dry-run --Werror --style=file "${file}"
    WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE diagnostics)
  if(NOT rc EQUAL 0)
    list(APPEND bad "${file}")
  endif()
endforeach()

list(LENGTH bad n_bad)
if(n_bad GREATER 0)
  list(JOIN bad "\n  " text)
  list(JOIN bad " " args)
  message(FATAL_ERROR "${n_bad} of ${n_files} files (from ${how}) are not clang-formatted:\n  ${text}\n"
                      "fix them from the repository root with: ${CLANG_FORMAT} -i ${args}")
endif()
message(STATUS "${n_files} files (from ${how}) are clang-formatted")
