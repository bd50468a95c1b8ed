# Module include interfaces: the build enforces src/layers.toml's graph (docs/ARCHITECTURE.md).
#
# There is no project-wide include path. Each module src/<module>/ gets a view directory,
# <build>/module_include/<module>/, holding one link `<module>` -> src/<module>; every target defined
# under src/<module>/ carries that view (libraries PUBLIC, executables PRIVATE), so "module/header.hpp"
# resolves only for the module itself and for targets that link one of its libraries. An #include of
# a module a target does not link fails to compile.
#
# ksearch_module_interfaces(MODULE) attaches the view to every target of src/MODULE/ (subfolders
# included) and records the module in the target property KSEARCH_MODULE.
# ksearch_write_module_links(FILE) writes, as JSON, each module target's module and the modules of
# the ksearch targets it links directly; tests/layers/check_layers.py checks them against
# src/layers.toml.

function(_ksearch_targets_under dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    _ksearch_targets_under(${subdir} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(ksearch_module_interfaces module)
  set(view ${CMAKE_BINARY_DIR}/module_include/${module})
  if(NOT IS_SYMLINK ${view}/${module})
    file(MAKE_DIRECTORY ${view})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${module} ${view}/${module} SYMBOLIC)
  endif()
  _ksearch_targets_under(${CMAKE_SOURCE_DIR}/src/${module} targets)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      target_include_directories(${target} INTERFACE ${view})
    elseif(type STREQUAL "EXECUTABLE")
      target_include_directories(${target} PRIVATE ${view})
    elseif(type MATCHES "LIBRARY$")
      target_include_directories(${target} PUBLIC ${view})
    else()
      continue()  # custom targets
    endif()
    set_property(TARGET ${target} PROPERTY KSEARCH_MODULE ${module})
    set_property(GLOBAL APPEND PROPERTY KSEARCH_MODULE_TARGETS ${target})
  endforeach()
endfunction()

function(ksearch_write_module_links file)
  get_property(targets GLOBAL PROPERTY KSEARCH_MODULE_TARGETS)
  set(json "{}")
  foreach(target ${targets})
    get_target_property(module ${target} KSEARCH_MODULE)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
    else()
      get_target_property(links ${target} LINK_LIBRARIES)
    endif()
    set(linked_modules "")
    foreach(link ${links})
      if(TARGET ${link})
        get_target_property(linked_module ${link} KSEARCH_MODULE)
        if(linked_module)
          list(APPEND linked_modules "\"${linked_module}\"")
        endif()
      endif()
    endforeach()
    list(REMOVE_DUPLICATES linked_modules)
    list(JOIN linked_modules ", " linked_modules)
    string(JSON json SET "${json}" ${target} "{\"module\": \"${module}\", \"links\": [${linked_modules}]}")
  endforeach()
  file(WRITE ${file}.new "${json}\n")
  configure_file(${file}.new ${file} COPYONLY)
endfunction()
