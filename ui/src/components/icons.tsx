// Small inline icons (no icon font: the window must not depend on system fonts).
type IconProps = { size?: number; title?: string };

const svg = (size: number, title: string | undefined, body: React.ReactNode) => (
  // biome-ignore lint/a11y/noSvgWithoutTitle: the title is there when one is given; without it the icon is aria-hidden
  <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2}
    strokeLinecap="round" strokeLinejoin="round" aria-hidden={title ? undefined : true} role={title ? "img" : undefined}>
    {title && <title>{title}</title>}
    {body}
  </svg>
);

export const FlagIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><path d="M5 21V4" /><path d="M5 4h11l-2 4 2 4H5" /></>);

export const HourglassIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><path d="M6 3h12M6 21h12" /><path d="M7 3c0 5 10 5 10 9s-10 4-10 9" /><path d="M17 3c0 5-10 5-10 9s10 4 10 9" /></>);

export const RouterIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><circle cx="12" cy="12" r="3" /><path d="M12 3v6M12 15v6M3 12h6M15 12h6" /></>);

export const GroupIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><rect x="3" y="3" width="8" height="8" rx="2" /><rect x="13" y="13" width="8" height="8" rx="2" /><path d="M11 7h4a2 2 0 0 1 2 2v4" /></>);

export const AlertIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><path d="M12 3 2 21h20L12 3z" /><path d="M12 10v5M12 18h.01" /></>);

export const ErrorIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><circle cx="12" cy="12" r="9" /><path d="M12 7v6M12 16h.01" /></>);

export const CheckIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><circle cx="12" cy="12" r="9" /><path d="m8 12 3 3 5-6" /></>);

export const FileIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><path d="M14 3H6a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V9z" /><path d="M14 3v6h6" /></>);

export const FolderIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <path d="M3 6a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z" />);

export const BackIcon = ({ size = 16, title }: IconProps) => svg(size, title, <path d="m15 18-6-6 6-6" />);

export const InfoIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><circle cx="12" cy="12" r="9" /><path d="M12 11v6M12 7h.01" /></>);

export const EyeIcon = ({ size = 16, title }: IconProps) =>
  svg(size, title, <><path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12Z" /><circle cx="12" cy="12" r="3" /></>);
