# `cmake --install BUILD --prefix P` installs the C++ package: the shared library libtosakit.so (every static
# library under src/, linked into one), the public headers (include/tosakit, with the src/core and src/ir
# headers they include installed beside them), the tosakit CLI, and the CMake package config, so that
#   find_package(tosakit CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE tosakit::tosakit)
# works (docs/API.md, "C++ package"). Included at the end of the top-level CMakeLists, once every library exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The static libraries of every directory under src/ (frontends and formats added later are picked up too).
function(tosakit_collect_static_libs dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  set(libs)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      list(APPEND libs ${t})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    tosakit_collect_static_libs(${sub} sub_libs)
    list(APPEND libs ${sub_libs})
  endforeach()
  set(${out} ${libs} PARENT_SCOPE)
endfunction()
set(TOSAKIT_PACKAGE_LIBS)
get_property(tosakit_top_subdirs DIRECTORY ${CMAKE_SOURCE_DIR} PROPERTY SUBDIRECTORIES)
foreach(sub ${tosakit_top_subdirs})
  string(FIND "${sub}/" "${CMAKE_SOURCE_DIR}/src/" at)
  if(at EQUAL 0)
    tosakit_collect_static_libs(${sub} libs)
    list(APPEND TOSAKIT_PACKAGE_LIBS ${libs})
  endif()
endforeach()

# One shared library made of the static libraries' objects (so every kernel registration is kept); linking
# them too brings their external dependencies (oneDNN, MLIR, ONNX, protobuf, libzip, OpenCV, OpenMP), which the
# library records as its own (DT_NEEDED, run path to MLIR/LLVM): a program needs none of their CMake packages.
add_library(tosakit_shared SHARED)
foreach(lib ${TOSAKIT_PACKAGE_LIBS})
  set_target_properties(${lib} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_sources(tosakit_shared PRIVATE $<TARGET_OBJECTS:${lib}>)
endforeach()
target_link_libraries(tosakit_shared PRIVATE ${TOSAKIT_PACKAGE_LIBS})
target_include_directories(tosakit_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                           $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/src>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tosakit>)
target_compile_features(tosakit_shared INTERFACE cxx_std_20)
set_target_properties(tosakit_shared PROPERTIES OUTPUT_NAME tosakit EXPORT_NAME tosakit
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
                      INSTALL_RPATH_USE_LINK_PATH TRUE)
add_library(tosakit::tosakit ALIAS tosakit_shared)
# The installed CLI keeps its run path to MLIR/LLVM (outside the system library directories).
set_target_properties(tosakit PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS tosakit_shared EXPORT tosakitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT package
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tosakit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT package)
install(DIRECTORY include/tosakit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT package
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY src/core src/ir DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tosakit COMPONENT package
        FILES_MATCHING PATTERN "*.h")
set(TOSAKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tosakit)
install(EXPORT tosakitTargets NAMESPACE tosakit:: DESTINATION ${TOSAKIT_CMAKE_DIR} COMPONENT package)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/tosakitConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/tosakitConfig.cmake INSTALL_DESTINATION ${TOSAKIT_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/tosakitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/tosakitConfig.cmake ${CMAKE_BINARY_DIR}/package/tosakitConfigVersion.cmake
        DESTINATION ${TOSAKIT_CMAKE_DIR} COMPONENT package)
