package io.ibemu.devfs;

/** {@link DeviceDirectoryTest} over libfuse2 ({@code --fuse-transport libfuse}): both transports behave alike. */
class DeviceDirectoryLibfuseTest extends DeviceDirectoryTest {

    @Override
    DeviceDirectory.Transport transport() {
        return DeviceDirectory.Transport.LIBFUSE;
    }
}
