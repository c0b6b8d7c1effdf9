# Include paths that expose one folder each, and the manifest the layer-include check reads.
#
# shardscope_expose_folder(TARGET folder) stages build/layers/<TARGET>/<folder> as a link to the source folder
# and makes build/layers/<TARGET> the target's PUBLIC include path: a user includes "<folder>/x.hpp" only when
# it links TARGET, so no target publishes the repository root.
function(shardscope_expose_folder target folder)
  set(root ${CMAKE_BINARY_DIR}/layers/${target})
  get_filename_component(parent ${root}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${root}/${folder})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${folder} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
  set_property(GLOBAL APPEND PROPERTY SHARDSCOPE_LAYER_TARGETS ${target})
  set_property(TARGET ${target} APPEND PROPERTY SHARDSCOPE_FOLDERS ${folder})
endfunction()

# Writes build/layers/manifest.txt: one line per target defined under the product folders (planner, process,
# exchange, present, sim, validate, gui, apps), fields separated by '|', list items by tabs, raw property
# values (generator expressions kept):
#   name | source dir | exposed folders | sources | INTERFACE_LINK_LIBRARIES | LINK_LIBRARIES
#        | INTERFACE_INCLUDE_DIRECTORIES
# tests/layers/check_layers.py checks the headers and sources of each against it. Call it last.
function(shardscope_write_layer_manifest)
  set(pending ${PROJECT_SOURCE_DIR})
  set(lines "")
  while(pending)
    list(POP_FRONT pending dir)
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    list(APPEND pending ${subdirs})
    if(NOT dir MATCHES "^${PROJECT_SOURCE_DIR}/(planner|process|exchange|present|sim|validate|gui|apps)(/|$)")
      continue()
    endif()
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS targets)
      set(fields ${t} ${dir})
      foreach(p SHARDSCOPE_FOLDERS SOURCES INTERFACE_LINK_LIBRARIES LINK_LIBRARIES INTERFACE_INCLUDE_DIRECTORIES)
        get_target_property(v ${t} ${p})
        if(NOT v)
          set(v "")
        endif()
        string(REPLACE ";" "\t" v "${v}")
        list(APPEND fields "${v}")
      endforeach()
      list(JOIN fields "|" line)
      string(APPEND lines "${line}\n")
    endforeach()
  endwhile()
  file(WRITE ${CMAKE_BINARY_DIR}/layers/manifest.txt "${lines}")
endfunction()
